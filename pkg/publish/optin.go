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

import v1 "k8s.io/api/core/v1"

// LabelOptIn opts pods in and out of the profile without editing them. On
// a namespace, "true" makes every pod created there that names no
// scheduler of its own (none, or default-scheduler) the profile's, so that
// workloads whose templates cannot be edited (a third-party chart's) are
// placed by it too. On a pod, "false" keeps the scheduler it names, in
// such a namespace.
const LabelOptIn = "windows-aware.x-k8s.io/opt-in"

// OptIn makes the pod the profile's, in place, and reports whether it did:
// a pod that names no scheduler of its own, is not opted out with
// LabelOptIn=false, and is one the profile would place and publish (not
// bound, not a mirror or a DaemonSet's pod: see skipReason). Whether the
// pod's namespace opts in is the webhook configuration's to check (its
// namespaceSelector), not this method's.
func (p *Publisher) OptIn(pod *v1.Pod) bool {
	if pod.Labels[LabelOptIn] == "false" {
		return false
	}
	if name := pod.Spec.SchedulerName; name != "" && name != v1.DefaultSchedulerName {
		return false
	}
	was := pod.Spec.SchedulerName
	pod.Spec.SchedulerName = p.profile
	if reason := p.skipReason(pod); reason != "" && reason != skipOptedOut {
		pod.Spec.SchedulerName = was
		return false
	}
	return true
}
