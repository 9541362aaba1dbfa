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

	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// Why a pod is not published. They are the values of the webhook's logs.
const (
	skipOtherScheduler = "another scheduler places the pod"
	skipBound          = "the pod names its node"
	skipMirror         = "a mirror pod"
	skipDaemonSet      = "a DaemonSet's pod"
	skipOptedOut       = "the pod opts out with " + wellknown.LabelPublish + "=false"
)

// skipReason says why the pod is not the publisher's to change, or "" when
// it is. The webhook configuration's matchConditions say the same; the
// code holds to it whatever the configuration says.
//
//   - A pod of another scheduler is not placed by the profile.
//   - A pod that names its node, and a mirror pod (a static pod the
//     kubelet runs), skip the scheduler altogether.
//   - A DaemonSet's pods are placed by the DaemonSet controller's own node
//     affinity, one per node; its template's selector is the user's.
func (p *Publisher) skipReason(pod *v1.Pod) string {
	switch {
	case pod.Spec.SchedulerName != p.profile:
		return skipOtherScheduler
	case pod.Spec.NodeName != "":
		return skipBound
	case pod.Annotations[v1.MirrorPodAnnotationKey] != "":
		return skipMirror
	case podneeds.DaemonSetPod(pod):
		return skipDaemonSet
	case pod.Labels[wellknown.LabelPublish] == "false":
		return skipOptedOut
	}
	return ""
}
