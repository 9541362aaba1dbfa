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
	v1 "k8s.io/api/core/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"

	"github.com/windows-aware/windows-aware/pkg/podneeds"
)

// TaintsRepel reports whether a node's NoSchedule or NoExecute taints keep
// a pod of this decision off it, as OSTaintToleration's Filter judges
// them: the pod's own tolerations, plus the OS taints of the OS the
// decision matched it to. The reason is the one that Filter gives.
func (pl *WindowsAware) TaintsRepel(d *podneeds.Decision, pod *v1.Pod, node *v1.Node) (repels bool, reason string) {
	implicit := pl.osTolerationOf(d)
	taints := OSTaintToleration{features: feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)}
	if taints.untolerated(klog.Background(), node, podneeds.NodeOS(node), pod.Spec.Tolerations, implicit) {
		return true, ErrReasonUntoleratedTaint
	}
	return false, ""
}
