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

package publish

import (
	"context"
	"sync/atomic"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	coordinationinformers "k8s.io/client-go/informers/coordination/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// minLeaseGrace is the least time a Lease's last renewal counts for. A
// replica that stops cleanly releases the Lease with a duration of one
// second, and another takes it within its retry period: the pods created
// meanwhile still opt in.
const minLeaseGrace = 30 * time.Second

// LeaseWatch is a SchedulerPresence read from the scheduler's
// leader-election Lease, through an informer of that one object: the
// opt-in reads memory, never the API server, per review. The scheduler
// runs while the Lease was renewed within twice its duration (at least
// minLeaseGrace): a leader renews it every few seconds, and a standby
// takes it over within one duration of the leader's end, so only a
// scheduler with no replica left lets it age past that. The renewal time
// is the scheduler's clock; the grace absorbs a few seconds of skew.
type LeaseWatch struct {
	namespace, name string
	informer        cache.SharedIndexInformer
	clock           clock.PassiveClock
	logger          klog.Logger
	// absent remembers the last answer, to log when it changes.
	absent atomic.Bool
}

// WatchLease returns the LeaseWatch of the Lease namespace/name, which
// Run starts. Reading it needs get, list and watch on that Lease (a Role
// may name it: the informer selects it by name).
func WatchLease(logger klog.Logger, client kubernetes.Interface, namespace, name string) *LeaseWatch {
	byName := func(opts *metav1.ListOptions) {
		opts.FieldSelector = fields.OneTermEqualSelector(metav1.ObjectNameField, name).String()
	}
	return &LeaseWatch{
		namespace: namespace, name: name,
		informer: coordinationinformers.NewFilteredLeaseInformer(client, namespace, 0, cache.Indexers{}, byName),
		clock:    clock.RealClock{},
		logger:   logger,
	}
}

// Run reads the Lease until ctx ends.
func (w *LeaseWatch) Run(ctx context.Context) { w.informer.RunWithContext(ctx) }

// Present reports whether a replica renews the Lease; known is false until
// the informer has listed it once.
func (w *LeaseWatch) Present() (present, known bool) {
	if !w.informer.HasSynced() {
		return false, false
	}
	obj, exists, err := w.informer.GetStore().GetByKey(w.namespace + "/" + w.name)
	lease, _ := obj.(*coordinationv1.Lease)
	present = err == nil && exists && leaseRenewed(lease, w.clock.Now())
	if was := w.absent.Swap(!present); was != !present {
		if present {
			w.logger.Info("The scheduler renews its Lease again: pods of opted-in namespaces become the profile's", "lease", klog.KRef(w.namespace, w.name))
		} else {
			w.logger.Info("No scheduler replica renews its Lease: pods of opted-in namespaces keep the stock scheduler until one does", "lease", klog.KRef(w.namespace, w.name))
		}
	}
	return present, true
}

// leaseRenewed reports whether lease was renewed within twice its
// duration, and at least minLeaseGrace, of now.
func leaseRenewed(lease *coordinationv1.Lease, now time.Time) bool {
	if lease == nil || lease.Spec.RenewTime == nil {
		return false
	}
	grace := minLeaseGrace
	if d := lease.Spec.LeaseDurationSeconds; d != nil && 2*time.Duration(*d)*time.Second > grace {
		grace = 2 * time.Duration(*d) * time.Second
	}
	return now.Before(lease.Spec.RenewTime.Add(grace))
}
