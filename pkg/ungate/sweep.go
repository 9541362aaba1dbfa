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

package ungate

import (
	"context"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/windows-aware/windows-aware/pkg/publish"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// DefaultSweep is how often the controller lists every pod for those that
// carry the gate without its label. The watch finds every pod the webhook
// gates, labelled; the sweep is for the few that no watch of the label
// sees (a pod created with the gate by hand, or while the webhook was
// down, a label removed since), which then wait at most this long, as a
// pod whose updates kept failing waits for the resync.
const DefaultSweep = 5 * time.Minute

// sweep lists every pod of the cluster, a page at a time, and queues
// those that carry the gate without the label, which the informer does
// not hold: the workers then ungate them as they do labelled pods, from
// the pod as listed (listed). Run calls it when it starts and every Sweep.
func (c *Controller) sweep(ctx context.Context) {
	logger := klog.FromContext(ctx)
	c.listed.reset()
	var found int
	err := eachPod(ctx, c.client, "", c.opts.PageSize, func(pod *v1.Pod) {
		if !publish.Gated(pod) || pod.Labels[wellknown.LabelGated] == "true" {
			return // not ours, or the informer's
		}
		key, err := cache.MetaNamespaceKeyFunc(pod)
		if err != nil {
			utilruntime.HandleErrorWithContext(ctx, err, "Queueing a gated pod")
			return
		}
		found++
		c.listed.put(key, pod)
		c.queue.Add(key)
	})
	if err != nil && ctx.Err() == nil {
		utilruntime.HandleErrorWithContext(ctx, err, "Listing the pods for gated pods without the label; trying again at the next sweep", "label", wellknown.LabelGated, "sweep", c.opts.Sweep)
	}
	if found > 0 {
		logger.Info("Found gated pods without the label", "pods", found, "label", wellknown.LabelGated)
	}
}

// listed holds, by key, the gated pods the last sweep found without the
// label, as listed, for the workers: the informer selects by the label and
// has no copy of them. A copy read minutes ago is safe to work from: the
// patch applies only to the pod as read (patch.go), and a pod changed
// since is read again.
type listed struct {
	mu   sync.Mutex
	pods map[string]*v1.Pod
}

// reset forgets the pods an earlier sweep found: the next finds again
// those still gated, and a pod deleted meanwhile is not kept.
func (l *listed) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pods = nil
}

func (l *listed) put(key string, pod *v1.Pod) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pods == nil {
		l.pods = map[string]*v1.Pod{}
	}
	l.pods[key] = pod
}

// get is the pod of key as the last sweep listed it, or nil.
func (l *listed) get(key string) *v1.Pod {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pods[key]
}
