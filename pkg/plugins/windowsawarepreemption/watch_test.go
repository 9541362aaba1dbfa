/*
Copyright The windows-aware Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package windowsawarepreemption

import (
	"context"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
	testingclock "k8s.io/utils/clock/testing"
)

const (
	testInterval = 50 * time.Millisecond
	// testBoundTicks is the bound in ticks: the watcher's bound is
	// testBoundTicks intervals.
	testBoundTicks = 10
)

// held is a built plugin whose DefaultPreemption gate is a fakeGate and
// whose watchers run on a fake clock, so that a test moves them tick by
// tick.
type held struct {
	*built
	gate  *fakeGate
	clock *testingclock.FakeClock
	pod   *v1.Pod
}

func newHeld(t *testing.T) *held {
	t.Helper()
	pod := st.MakePod().Namespace("default").Name("preemptor").UID("preemptor-uid").Priority(1000).Obj()
	b, err := build(t, nil, pod)
	if err != nil {
		t.Fatal(err)
	}
	h := &held{built: b, gate: &fakeGate{}, clock: testingclock.NewFakeClock(time.Now()), pod: pod}
	w := b.pl.watchers
	w.gate = h.gate.PreEnqueue
	w.clock = h.clock
	w.interval = testInterval
	w.bound = testBoundTicks * testInterval
	return h
}

// tick moves the clock one interval and waits for the pod's watcher to
// act on it: to ask the gate and find it closed (it then waits for the
// next tick), or to end.
func (h *held) tick(t *testing.T) {
	t.Helper()
	w := h.pl.watchers
	before, _ := h.gate.state()
	h.clock.Step(testInterval)
	eventually(t, "the watcher to act on a tick", func() bool {
		asks, lastOpen := h.gate.state()
		return !w.isRunning(h.pod) || (asks > before && !lastOpen)
	})
}

func (h *held) deletePod(t *testing.T) {
	t.Helper()
	if err := h.client.CoreV1().Pods(h.pod.Namespace).Delete(context.Background(), h.pod.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	lister := h.factory.Core().V1().Pods().Lister()
	eventually(t, "the informer to see the pod deleted", func() bool {
		_, err := lister.Pods(h.pod.Namespace).Get(h.pod.Name)
		return apierrors.IsNotFound(err)
	})
}

func (h *held) bindPod(t *testing.T) {
	t.Helper()
	bound := h.pod.DeepCopy()
	bound.Spec.NodeName = "node-1"
	if _, err := h.client.CoreV1().Pods(h.pod.Namespace).Update(context.Background(), bound, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	lister := h.factory.Core().V1().Pods().Lister()
	eventually(t, "the informer to see the pod bound", func() bool {
		p, err := lister.Pods(h.pod.Namespace).Get(h.pod.Name)
		return err == nil && p.Spec.NodeName != ""
	})
}

// TestWatcher holds a pod at PreEnqueue and plays what happens to it tick
// by tick: the pod is activated once, as soon as DefaultPreemption's gate
// lets it through, and by one watcher however often the queue asks; the
// watcher ends then, at the bound, or when the pod is gone or bound, and
// is asked nothing after.
func TestWatcher(t *testing.T) {
	const never = -1
	for _, tt := range []struct {
		name string
		// preEnqueues is how often the queue runs PreEnqueue on the pod
		// before the first tick.
		preEnqueues int
		// openAt, deleteAt and bindAt are the ticks before which the
		// gate opens, the pod is deleted, the pod is bound (never: not).
		openAt, deleteAt, bindAt int
		// wantEndAt is the tick at which the watcher ends, and wantAsks
		// how often it asked the gate until then.
		wantEndAt, wantAsks int
		wantActivated       bool
	}{
		{
			name:        "gate opens: the pod is activated once, at the next tick",
			preEnqueues: 1, openAt: 3, deleteAt: never, bindAt: never,
			wantEndAt: 3, wantAsks: 3, wantActivated: true,
		},
		{
			name:        "gate opens at the first tick",
			preEnqueues: 1, openAt: 1, deleteAt: never, bindAt: never,
			wantEndAt: 1, wantAsks: 1, wantActivated: true,
		},
		{
			name:        "gate never opens: the watcher ends at the bound",
			preEnqueues: 1, openAt: never, deleteAt: never, bindAt: never,
			wantEndAt: testBoundTicks, wantAsks: testBoundTicks - 1,
		},
		{
			name:        "pod deleted: the watcher ends",
			preEnqueues: 1, openAt: never, deleteAt: 4, bindAt: never,
			wantEndAt: 4, wantAsks: 3,
		},
		{
			name:        "pod bound: the watcher ends",
			preEnqueues: 1, openAt: never, deleteAt: never, bindAt: 2,
			wantEndAt: 2, wantAsks: 1,
		},
		{
			name:        "many PreEnqueue calls: one watcher, one activation",
			preEnqueues: 100, openAt: 5, deleteAt: never, bindAt: never,
			wantEndAt: 5, wantAsks: 5, wantActivated: true,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHeld(t)
			w := h.pl.watchers
			for range tt.preEnqueues {
				if status := h.pl.PreEnqueue(context.Background(), h.pod); status.IsSuccess() {
					t.Fatal("PreEnqueue let the pod through a closed gate")
				}
			}
			if n := w.count(); n != 1 {
				t.Fatalf("%d watchers after %d PreEnqueue calls, want 1", n, tt.preEnqueues)
			}
			queueAsks, _ := h.gate.state()
			endedAt := 0
			for i := 1; i <= testBoundTicks+1 && endedAt == 0; i++ {
				if i == tt.openAt {
					h.gate.setOpen(true)
				}
				if i == tt.deleteAt {
					h.deletePod(t)
				}
				if i == tt.bindAt {
					h.bindPod(t)
				}
				h.tick(t)
				if !w.isRunning(h.pod) {
					endedAt = i
				}
			}
			if endedAt != tt.wantEndAt {
				t.Errorf("the watcher ended at tick %d, want %d (0: still running past the bound)", endedAt, tt.wantEndAt)
			}
			asks, _ := h.gate.state()
			if got := asks - queueAsks; got != tt.wantAsks {
				t.Errorf("the watcher asked the gate %d times, want %d", got, tt.wantAsks)
			}
			if tt.wantActivated {
				eventually(t, "the activation", func() bool { return len(h.activated.get()) > 0 })
			}
			// Further ticks: nothing more is asked or activated.
			for range 3 {
				h.clock.Step(testInterval)
			}
			time.Sleep(20 * time.Millisecond)
			if later, _ := h.gate.state(); later != asks {
				t.Errorf("the gate was asked %d more times after the watcher ended", later-asks)
			}
			calls := h.activated.get()
			switch {
			case !tt.wantActivated && len(calls) != 0:
				t.Errorf("Activate called %d times, want none", len(calls))
			case tt.wantActivated && len(calls) != 1:
				t.Errorf("Activate called %d times, want once", len(calls))
			case tt.wantActivated:
				if p := calls[0][h.pod.Name]; len(calls[0]) != 1 || p == nil || p.UID != h.pod.UID {
					t.Errorf("Activate(%v), want the preemptor alone", calls[0])
				}
			}
		})
	}
}

// TestWatcherAgain: a pod held again after its watcher activated it gets a
// new watcher, and a pod the gate lets through gets none.
func TestWatcherAgain(t *testing.T) {
	h := newHeld(t)
	w := h.pl.watchers
	h.gate.setOpen(true)
	if status := h.pl.PreEnqueue(context.Background(), h.pod); !status.IsSuccess() {
		t.Fatalf("PreEnqueue = %v through an open gate", status)
	}
	if n := w.count(); n != 0 {
		t.Fatalf("%d watchers for a pod let through, want none", n)
	}
	for round := 1; round <= 2; round++ {
		h.gate.setOpen(false)
		if status := h.pl.PreEnqueue(context.Background(), h.pod); status.IsSuccess() {
			t.Fatal("PreEnqueue let the pod through a closed gate")
		}
		h.gate.setOpen(true)
		h.tick(t)
		if w.isRunning(h.pod) {
			t.Fatalf("round %d: the watcher still runs after the gate opened", round)
		}
		eventually(t, "the activation", func() bool { return len(h.activated.get()) == round })
	}
}

// TestWatcherEndsWithTheScheduler: the watchers end with the context the
// plugin was built with.
func TestWatcherEndsWithTheScheduler(t *testing.T) {
	h := newHeld(t)
	if status := h.pl.PreEnqueue(context.Background(), h.pod); status.IsSuccess() {
		t.Fatal("PreEnqueue let the pod through a closed gate")
	}
	h.cancel()
	eventually(t, "the watcher to end", func() bool { return !h.pl.watchers.isRunning(h.pod) })
	if calls := h.activated.get(); len(calls) != 0 {
		t.Errorf("Activate called %d times, want none", len(calls))
	}
}
