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

package ostainttoleration

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/windows-aware/windows-aware/internal/k8scompat"
	"github.com/windows-aware/windows-aware/pkg/plugins/osmatch"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
)

// ErrReasonUntoleratedTaint is the reason upstream TaintToleration gives.
const ErrReasonUntoleratedTaint = podneeds.ReasonUntoleratedTaint

// reasonsUntoleratedTaint is passed to NewStatus as it is, so that a
// rejection allocates its Status alone; its capacity makes an append copy.
var reasonsUntoleratedTaint = []string{ErrReasonUntoleratedTaint}[:1:1]

// Filter rejects a node with a NoSchedule or NoExecute taint the pod does
// not tolerate, by its tolerations or by its OS.
func (pl *OSTaintToleration) Filter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodeInfo fwk.NodeInfo) *fwk.Status {
	if k8scompat.ResizeDeferred(pl.features, pod) {
		return nil // as TaintToleration: a deferred resize is not re-placed
	}
	node := nodeInfo.Node()
	if len(node.Spec.Taints) == 0 {
		return nil
	}
	// Where WindowsAware left no match (it is not in the profile, or the
	// pod needs nothing of it), the pod gets no implicit toleration and
	// this is upstream TaintToleration: without that decision, no OS taint
	// can be known to be the pod's own.
	var implicit *podneeds.OSToleration
	var os string
	if m, ok := osmatch.Read(state); ok {
		if implicit = m.OSToleration(); implicit != nil {
			os = m.OSOf(node)
		}
	}
	if pl.untolerated(klog.FromContext(ctx), node, os, pod.Spec.Tolerations, implicit) {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, reasonsUntoleratedTaint...)
	}
	return nil
}

// untolerated is podneeds.Untolerated under the scheduler's feature gates.
func (pl *OSTaintToleration) untolerated(logger klog.Logger, node *v1.Node, nodeOS string, tolerations []v1.Toleration, implicit *podneeds.OSToleration) bool {
	return podneeds.Untolerated(logger, node, nodeOS, tolerations, implicit, pl.features.EnableTaintTolerationComparisonOperators)
}
