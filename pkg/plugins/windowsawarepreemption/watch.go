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
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/utils/clock"
)

// pollInterval is how often a watcher asks DefaultPreemption's PreEnqueue
// again. The preemption's API calls take milliseconds to tens of
// milliseconds; a held pod comes back at most this long after they end,
// and each ask is a read under DefaultPreemption's lock and a lister get.
const pollInterval = 50 * time.Millisecond

// watchBound is how long a watcher waits at most: the unschedulable pool's
// own flush (5 minutes) requeues the pod by then anyway. A preemption that
// runs longer is left to that flush, so that no pod can keep a goroutine
// for longer, nor cost more than watchBound/pollInterval asks.
const watchBound = 5 * time.Minute

// watchers are the goroutines that wait, one per held pod, for
// DefaultPreemption's PreEnqueue to let the pod through.
type watchers struct {
	// ctx is the scheduler's: the watchers end with it.
	ctx context.Context
	// gate is DefaultPreemption's PreEnqueue.
	gate func(context.Context, *v1.Pod) *fwk.Status
	// activate is the framework's Activate, which moves a pod from the
	// unschedulable pool or the backoff queue to the active queue and does
	// nothing to a pod that is in neither.
	activate func(klog.Logger, map[string]*v1.Pod)
	// pods is the scheduler's pod lister, which says when a held pod is
	// deleted or bound and gives the pod as the queue now knows it.
	pods corelisters.PodLister

	clock    clock.WithTicker
	interval time.Duration
	bound    time.Duration

	mu sync.Mutex
	// running holds the UIDs of the pods a watcher runs for.
	running map[types.UID]struct{}
}

// watch starts a watcher for pod unless one runs for it. It never blocks:
// PreEnqueue calls it under the scheduling queue's lock.
func (w *watchers) watch(pod *v1.Pod) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.running[pod.UID]; ok {
		return
	}
	w.running[pod.UID] = struct{}{}
	// The ticker and the deadline are taken here rather than in the
	// goroutine, so that the watch starts when the pod is held.
	go w.run(pod, w.clock.NewTicker(w.interval), w.clock.Now().Add(w.bound))
}

// done forgets pod's watcher, so that PreEnqueue holding the pod again
// starts another.
func (w *watchers) done(uid types.UID) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.running, uid)
}

// run asks the gate again at every tick until it lets pod through, then
// activates the pod once. It ends without activating when the pod is gone
// or bound (it is in no queue then), when the deadline has passed, or
// when the scheduler stops.
func (w *watchers) run(pod *v1.Pod, ticker clock.Ticker, deadline time.Time) {
	logger := klog.FromContext(w.ctx).WithValues("pod", klog.KObj(pod))
	defer ticker.Stop()
	for {
		select {
		case <-w.ctx.Done():
			w.done(pod.UID)
			return
		case <-ticker.C():
		}
		if !w.clock.Now().Before(deadline) {
			w.done(pod.UID)
			logger.V(2).Info("Preemption still holds the pod at the watch's bound; the unschedulable pool's flush requeues it", "bound", w.bound)
			return
		}
		current, err := w.pods.Pods(pod.Namespace).Get(pod.Name)
		if err != nil || current.UID != pod.UID || current.Spec.NodeName != "" {
			w.done(pod.UID)
			return
		}
		if !w.gate(w.ctx, current).IsSuccess() {
			continue
		}
		// Forgotten before Activate: Activate runs PreEnqueue again, and
		// should a new preemption hold the pod by then, that PreEnqueue
		// must be able to start the next watcher.
		w.done(pod.UID)
		logger.V(4).Info("Preemption no longer holds the pod; activating it")
		w.activate(logger, map[string]*v1.Pod{current.Name: current})
		return
	}
}
