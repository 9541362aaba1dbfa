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

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"
)

// Lease timings: the scheduler's and controller-manager's defaults.
const (
	leaseDuration = 15 * time.Second
	renewDeadline = 10 * time.Second
	retryPeriod   = 2 * time.Second
)

// Lease names the Lease the replicas of the admission binary hold to
// remove gates, one at a time.
type Lease struct {
	Namespace string
	Name      string
	// Identity names this replica in the Lease (e.g. its pod name).
	Identity string
}

// RunLeading runs run while this replica holds the Lease, and stands for
// it again when it loses it, until ctx ends. run's context ends when the
// Lease is lost, so that two replicas never remove gates at once; the
// Lease is released on a clean stop, so the next replica takes over at
// once.
func RunLeading(ctx context.Context, client kubernetes.Interface, lease Lease, run func(context.Context)) error {
	logger := klog.FromContext(ctx)
	var term sync.Mutex
	lock, err := resourcelock.New(resourcelock.LeasesResourceLock, lease.Namespace, lease.Name,
		client.CoreV1(), client.CoordinationV1(), resourcelock.ResourceLockConfig{Identity: lease.Identity})
	if err != nil {
		return err
	}
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:            lock,
		LeaseDuration:   leaseDuration,
		RenewDeadline:   renewDeadline,
		RetryPeriod:     retryPeriod,
		ReleaseOnCancel: true,
		Name:            lease.Name,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				// The elector starts run in a goroutine and does not wait
				// for it when the Lease is lost: a new term waits here for
				// the last one to have stopped.
				term.Lock()
				defer term.Unlock()
				if ctx.Err() == nil {
					run(ctx)
				}
			},
			OnStoppedLeading: func() {
				logger.Info("Not removing publish gates: the Lease is held elsewhere or released", "lease", klog.KRef(lease.Namespace, lease.Name))
			},
			OnNewLeader: func(identity string) {
				if identity != lease.Identity {
					logger.Info("Another replica removes publish gates", "leader", identity)
				}
			},
		},
	})
	if err != nil {
		return err
	}
	for ctx.Err() == nil {
		elector.Run(ctx) // returns when the Lease is lost or ctx ends
	}
	return nil
}
