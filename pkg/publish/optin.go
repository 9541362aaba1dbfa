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
	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// SchedulerPresence tells whether a replica of the profile's scheduler is
// running: one holds and renews its leader-election Lease (LeaseWatch).
type SchedulerPresence interface {
	// Present reports whether the scheduler runs; known is false while
	// that cannot be told (the Lease not read yet, or not readable), and
	// the opt-in then goes on as if it ran.
	Present() (present, known bool)
}

// FollowScheduler makes the opt-in follow presence: a pod opts in only
// while the profile's scheduler runs.
func (p *Publisher) FollowScheduler(presence SchedulerPresence) { p.presence = presence }

// OptIn makes the pod the profile's, in place, and says so with
// OutcomeOptedIn: a pod that names no scheduler of its own, is not opted out
// with wellknown.LabelOptIn=false, is one the profile places (not bound, not
// a mirror pod: see skipReason), while the profile's scheduler runs. A
// DaemonSet's pod opts in too, though nothing is published into it: two
// schedulers binding onto the same nodes each count only the pods they know
// of, and the pods a DaemonSet adds to every node are the ones most likely to
// race with the profile's. Its controller's node affinity still decides its
// node, and the profile's plugins honour it.
//
// A pod that keeps its scheduler gets OutcomeSkipped, or
// OutcomeNoScheduler when only the scheduler's absence kept it: a pod
// handed to a scheduler that is gone would wait Pending, where the stock
// scheduler places it. Whether the pod's namespace opts in is the webhook
// configuration's to check (its namespaceSelector), not this method's.
func (p *Publisher) OptIn(pod *v1.Pod) Outcome {
	if pod.Labels[wellknown.LabelOptIn] == "false" {
		return OutcomeSkipped
	}
	if name := pod.Spec.SchedulerName; name != "" && name != v1.DefaultSchedulerName {
		return OutcomeSkipped
	}
	was := pod.Spec.SchedulerName
	pod.Spec.SchedulerName = p.profile
	switch p.skipReason(pod) {
	case "", skipOptedOut, skipDaemonSet:
	default:
		pod.Spec.SchedulerName = was
		return OutcomeSkipped
	}
	if p.presence != nil {
		if present, known := p.presence.Present(); known && !present {
			pod.Spec.SchedulerName = was
			return OutcomeNoScheduler
		}
	}
	return OutcomeOptedIn
}
