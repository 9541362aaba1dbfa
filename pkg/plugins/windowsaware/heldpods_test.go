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

package windowsaware

import (
	"context"
	"fmt"
	goruntime "runtime"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	fwk "k8s.io/kube-scheduler/framework"
	schedulerapi "k8s.io/kubernetes/pkg/scheduler/apis/config"
	schedcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultbinder"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/queuesort"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	tf "k8s.io/kubernetes/pkg/scheduler/testing/framework"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
)

// watchedResolution is the plugin with resolution on, built by the framework
// with a client and an informer factory, as the scheduler builds it, so that
// it hears of pods deleted and bound.
func watchedResolution(t *testing.T, args *config.WindowsAwareArgs) (*WindowsAware, *fake.Clientset) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	client := fake.NewClientset()
	factory := informers.NewSharedInformerFactory(client, 0)
	withArgs := func(ctx context.Context, _ runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		return New(ctx, args, h)
	}
	atPreEnqueue := func(_ *frameworkruntime.Registry, profile *schedulerapi.KubeSchedulerProfile) {
		profile.Plugins.PreEnqueue.Enabled = append(profile.Plugins.PreEnqueue.Enabled, schedulerapi.Plugin{Name: Name})
	}
	f, err := tf.NewFramework(ctx, []tf.RegisterPluginFunc{
		tf.RegisterQueueSortPlugin(queuesort.Name, queuesort.New),
		tf.RegisterBindPlugin(defaultbinder.Name, defaultbinder.New),
		tf.RegisterPluginAsExtensions(Name, withArgs, "PreFilter", "Filter"),
		atPreEnqueue,
	}, "windows-aware",
		frameworkruntime.WithSnapshotSharedLister(schedcache.NewSnapshot(nil, testNodes())),
		frameworkruntime.WithClientSet(client),
		frameworkruntime.WithInformerFactory(factory),
		frameworkruntime.WithPodActivator(newActivations()))
	if err != nil {
		t.Fatalf("building the framework: %v", err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	return f.PreEnqueuePlugins()[0].(*WindowsAware), client
}

// slowRegistry answers no request while a test runs: each waits an hour,
// or until the resolver gives up on it.
func slowRegistry(t *testing.T) *registrytest.Server {
	s := registrytest.New(t, registrytest.WithTLS())
	s.Push(t, "app:1", registrytest.WindowsImage(t, osv2022))
	s.AddFault(registrytest.Fault{Times: -1, Delay: time.Hour})
	return s
}

// slowArgs resolve from s, holding pods an hour, with a request timeout so
// long that no run ends while a test runs, however slow the machine (the
// race detector's included).
func slowArgs(s *registrytest.Server) *config.WindowsAwareArgs {
	args := s.ResolvingArgs(config.ResolutionWindows, config.OnFailureTagRules, time.Hour)
	args.ImageResolution.RequestTimeout = metav1.Duration{Duration: time.Hour}
	return args
}

// gatedPod is a Windows pod whose image only the registry can tell.
func gatedPod(s *registrytest.Server, i int) *v1.Pod {
	p := withOS(pod(s.Ref("app:1")), v1.Windows)
	p.Name, p.Namespace, p.UID = fmt.Sprintf("churn-%d", i), "default", types.UID(fmt.Sprintf("uid-%d", i))
	return p
}

// heldCount is the number of pods remembered.
func (res *resolution) heldCount() int {
	res.mu.Lock()
	defer res.mu.Unlock()
	return len(res.held)
}

// awaitHeld waits until the plugin remembers n pods.
func awaitHeld(t *testing.T, res *resolution, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for res.heldCount() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d pods remembered, want %d", res.heldCount(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestHeldPodsForgottenOnDelete: pods created, held and deleted while their
// registry is slow, round after round, leave nothing remembered.
func TestHeldPodsForgottenOnDelete(t *testing.T) {
	s := slowRegistry(t)
	pl, client := watchedResolution(t, slowArgs(s))
	res := pl.resolution
	ctx := context.Background()
	const pods, rounds = 2000, 3
	var heap [rounds]uint64
	for round := range rounds {
		for i := range pods {
			p := gatedPod(s, round*pods+i)
			if _, err := client.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			if st := pl.PreEnqueue(ctx, p); st.IsSuccess() {
				t.Fatalf("pod %s not held while its registry has not answered", p.Name)
			}
		}
		awaitHeld(t, res, pods)
		for i := range pods {
			p := gatedPod(s, round*pods+i)
			if err := client.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			if i%50 == 49 {
				// The fake client's watch holds 100 events: let the
				// informer catch up.
				awaitHeld(t, res, pods-i-1)
			}
		}
		awaitHeld(t, res, 0)
		res.mu.Lock()
		left, keys := res.heldOrder.Len(), len(res.byKey)
		res.mu.Unlock()
		if left != 0 || keys != 0 {
			t.Fatalf("round %d: %d pods in the order list and %d waiter keys left after every pod was deleted", round, left, keys)
		}
		client.ClearActions() // the fake client records every call
		goruntime.GC()
		var m goruntime.MemStats
		goruntime.ReadMemStats(&m)
		heap[round] = m.HeapAlloc
	}
	t.Logf("heap after each round of %d pods: %v bytes", pods, heap)
	// A round's pods, were they kept, would take some 2 KiB each; what
	// grows is the resolver's waiter names for its one unfinished run.
	if grown := int64(heap[rounds-1]) - int64(heap[0]); grown > 2<<20 {
		t.Errorf("heap grew by %d bytes over %d rounds of pods created and deleted, want it flat", grown, rounds-1)
	}
}

// TestHeldPodsForgottenWhenBound: a pod bound to a node is forgotten.
func TestHeldPodsForgottenWhenBound(t *testing.T) {
	s := slowRegistry(t)
	pl, client := watchedResolution(t, slowArgs(s))
	ctx := context.Background()
	p := gatedPod(s, 0)
	if _, err := client.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pl.PreEnqueue(ctx, p)
	awaitHeld(t, pl.resolution, 1)
	bound := p.DeepCopy()
	bound.Spec.NodeName = "win2022"
	if _, err := client.CoreV1().Pods(p.Namespace).Update(ctx, bound, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	awaitHeld(t, pl.resolution, 0)
}

// TestHeldPodsBounded: at the bound the oldest pods are dropped first, and
// the newest kept.
func TestHeldPodsBounded(t *testing.T) {
	s := slowRegistry(t)
	rp := newResolutionFramework(t, slowArgs(s), testNodes())
	res := rp.pl.resolution
	res.maxHeld = 10
	ctx := context.Background()
	for i := range 25 {
		rp.pl.PreEnqueue(ctx, gatedPod(s, i))
	}
	if n := res.heldCount(); n != 10 {
		t.Fatalf("%d pods remembered, want the bound, 10", n)
	}
	for i := range 25 {
		_, kept := res.held[types.UID(fmt.Sprintf("uid-%d", i))]
		if want := i >= 15; kept != want {
			t.Errorf("pod %d remembered = %v, want %v (the newest 10 kept)", i, kept, want)
		}
	}
}

// TestPodEventsForget: each event that says a held pod is gone or bound
// forgets it, however the informer first hears of the pod; the others keep
// it.
func TestPodEventsForget(t *testing.T) {
	s := slowRegistry(t)
	bound := func(p *v1.Pod) *v1.Pod {
		p = p.DeepCopy()
		p.Spec.NodeName = "win2022"
		return p
	}
	tests := []struct {
		name   string
		event  func(h cache.ResourceEventHandler, p *v1.Pod)
		forget bool
	}{
		{"added unbound", func(h cache.ResourceEventHandler, p *v1.Pod) { h.OnAdd(p, false) }, false},
		{"added already bound", func(h cache.ResourceEventHandler, p *v1.Pod) { h.OnAdd(bound(p), false) }, true},
		{"updated, still unbound", func(h cache.ResourceEventHandler, p *v1.Pod) { h.OnUpdate(p, p.DeepCopy()) }, false},
		{"updated to bound", func(h cache.ResourceEventHandler, p *v1.Pod) { h.OnUpdate(p, bound(p)) }, true},
		{"deleted", func(h cache.ResourceEventHandler, p *v1.Pod) { h.OnDelete(p) }, true},
		{"deleted, final state unknown", func(h cache.ResourceEventHandler, p *v1.Pod) {
			h.OnDelete(cache.DeletedFinalStateUnknown{Key: "default/" + p.Name, Obj: p})
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rp := newResolutionFramework(t, slowArgs(s), testNodes())
			res := rp.pl.resolution
			p := gatedPod(s, 0)
			rp.pl.PreEnqueue(context.Background(), p)
			if n := res.heldCount(); n != 1 {
				t.Fatalf("%d pods remembered before the event, want 1", n)
			}
			tt.event(res.podEvents(), p)
			if want := map[bool]int{true: 0, false: 1}[tt.forget]; res.heldCount() != want {
				t.Errorf("%d pods remembered after the event, want %d", res.heldCount(), want)
			}
		})
	}
}
