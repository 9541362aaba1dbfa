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
	"container/list"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"
)

// The pods PreEnqueue holds while their images are resolved are remembered
// by UID, for their deadline and their one Event. A pod that is deleted, or
// bound, while it is remembered is forgotten at once (podEvents), so that
// pods created and deleted faster than the registry answers leave nothing
// behind; and the set is bounded, its oldest dropped first without a scan.

// heldPod is what is remembered of one held pod.
type heldPod struct {
	pod    *v1.Pod
	key    string
	since  time.Time
	timer  clock.Timer
	warned map[string]bool // images the pod got an Event for
	// elem is the pod's place in heldOrder.
	elem *list.Element
}

// defaultMaxHeld bounds the pods remembered.
const defaultMaxHeld = 50000

// heldLongAfter is how long past its gateTimeout a pod is kept for its
// Event before it is dropped to make room: it was deleted or scheduled
// long ago, and its delete was missed.
const heldLongAfter = time.Hour

// entryLocked returns the pod's entry, adding one (held from now) when it
// has none.
func (res *resolution) entryLocked(pod *v1.Pod) (h *heldPod, added bool) {
	if h, ok := res.held[pod.UID]; ok {
		return h, false
	}
	now := res.clock.Now()
	res.trimLocked(now)
	h = &heldPod{pod: pod, key: podKey(pod), since: now}
	h.elem = res.heldOrder.PushBack(h)
	res.held[pod.UID] = h
	res.byKey[h.key] = h
	return h, true
}

// trimLocked makes room for one more pod: it drops, oldest first, the pods
// held more than heldLongAfter past their timeout, then, at the bound, the
// oldest. Each pod is dropped once, so the cost is constant per pod held.
func (res *resolution) trimLocked(now time.Time) {
	stale := res.args.GateTimeout.Duration + heldLongAfter
	for front := res.heldOrder.Front(); front != nil; front = res.heldOrder.Front() {
		h := front.Value.(*heldPod)
		if now.Sub(h.since) <= stale && res.heldOrder.Len() < res.maxHeld {
			return
		}
		res.forgetLocked(h)
	}
}

// release forgets a pod whose images are all known, unless it got an Event,
// which it is kept for so as not to get it twice.
func (res *resolution) release(pod *v1.Pod) {
	res.mu.Lock()
	defer res.mu.Unlock()
	if h, ok := res.held[pod.UID]; ok && len(h.warned) == 0 {
		res.forgetLocked(h)
	}
}

// forget drops whatever is remembered of the pod of uid.
func (res *resolution) forget(uid types.UID) {
	res.mu.Lock()
	defer res.mu.Unlock()
	if h, ok := res.held[uid]; ok {
		res.forgetLocked(h)
	}
}

func (res *resolution) forgetLocked(h *heldPod) {
	if h.timer != nil {
		h.timer.Stop()
	}
	res.heldOrder.Remove(h.elem)
	delete(res.held, h.pod.UID)
	if res.byKey[h.key] == h {
		delete(res.byKey, h.key)
	}
}

// podEvents forgets a remembered pod when it is deleted or bound to a node.
// A pod can first reach the informer already bound, as an add: when its
// create was missed and the bind is the first the watch hears of it, or
// when a relist follows a broken watch.
func (res *resolution) podEvents() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if p, ok := obj.(*v1.Pod); ok && p.Spec.NodeName != "" {
				res.forget(p.UID)
			}
		},
		UpdateFunc: func(oldObj, newObj any) {
			old, ok1 := oldObj.(*v1.Pod)
			p, ok2 := newObj.(*v1.Pod)
			if ok1 && ok2 && old.Spec.NodeName == "" && p.Spec.NodeName != "" {
				res.forget(p.UID)
			}
		},
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			if p, ok := obj.(*v1.Pod); ok {
				res.forget(p.UID)
			}
		},
	}
}
