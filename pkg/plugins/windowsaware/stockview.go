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
	v1helper "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/helper"
)

// stockView is how a pod looks to a cluster autoscaler: it simulates
// scheduling with upstream's in-tree plugins only (Cluster Autoscaler) or
// with the pod's own selector, affinity and tolerations (Karpenter), so a
// node passes when the pod's required node selector and affinity match it
// and the pod tolerates its NoSchedule and NoExecute taints and its
// cordon. What WindowsAware derives from images, and the OS taints it lets
// a pod tolerate without a toleration, are not part of it.
type stockView struct {
	pod      *v1.Pod
	required nodeaffinity.RequiredNodeAffinity
	// comparisonOperators follows the TaintTolerationComparisonOperators
	// feature gate, as upstream TaintToleration does.
	comparisonOperators bool
}

func newStockView(pod *v1.Pod, comparisonOperators bool) *stockView {
	return &stockView{pod: pod, required: nodeaffinity.GetRequiredNodeAffinity(pod), comparisonOperators: comparisonOperators}
}

// admits reports whether node passes upstream NodeAffinity (without a
// profile's addedAffinity: an autoscaler's profile has none of ours),
// TaintToleration and NodeUnschedulable for the pod.
func (s *stockView) admits(logger klog.Logger, node *v1.Node) bool {
	// Parsing errors are ignored, as upstream NodeAffinity ignores them.
	if match, _ := s.required.Match(node); !match {
		return false
	}
	if _, untolerated := v1helper.FindMatchingUntoleratedTaint(logger, node.Spec.Taints, s.pod.Spec.Tolerations,
		helper.DoNotScheduleTaintsFilterFunc(), s.comparisonOperators); untolerated {
		return false
	}
	if node.Spec.Unschedulable {
		cordon := &v1.Taint{Key: v1.TaintNodeUnschedulable, Effect: v1.TaintEffectNoSchedule}
		return v1helper.TolerationsTolerateTaint(logger, s.pod.Spec.Tolerations, cordon, s.comparisonOperators)
	}
	return true
}
