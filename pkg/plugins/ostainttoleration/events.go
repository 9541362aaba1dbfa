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
	"k8s.io/kubernetes/pkg/scheduler/util"

	"github.com/windows-aware/windows-aware/internal/k8scompat"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
)

// EventsToRegister requeues on what can lift a taint's hold: a node added,
// a node's taints changed, or the pod given a toleration.
func (pl *OSTaintToleration) EventsToRegister(_ context.Context) ([]fwk.ClusterEventWithHint, error) {
	return []fwk.ClusterEventWithHint{
		{Event: fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.Add | fwk.UpdateNodeTaint}, QueueingHintFn: pl.isSchedulableAfterNodeChange},
		{Event: fwk.ClusterEvent{Resource: k8scompat.TargetPod, ActionType: fwk.UpdatePodToleration}, QueueingHintFn: pl.isSchedulableAfterTolerationChange},
	}, nil
}

// isSchedulableAfterNodeChange queues the pod when the node's taints went
// from repelling it to not. The hint cannot see WindowsAware's decision, so
// it grants every pod the OS toleration of the node's own OS: at worst a pod
// is tried once more than it needed.
func (pl *OSTaintToleration) isSchedulableAfterNodeChange(logger klog.Logger, pod *v1.Pod, oldObj, newObj any) (fwk.QueueingHint, error) {
	oldNode, newNode, err := util.As[*v1.Node](oldObj, newObj)
	if err != nil {
		return fwk.Queue, err
	}
	if pl.untolerated(logger, newNode, podneeds.NodeOS(newNode), pod.Spec.Tolerations, podneeds.AnyOSToleration(newNode)) {
		return fwk.QueueSkip, nil
	}
	if oldNode != nil && !pl.untolerated(logger, oldNode, podneeds.NodeOS(oldNode), pod.Spec.Tolerations, podneeds.AnyOSToleration(oldNode)) {
		return fwk.QueueSkip, nil
	}
	logger.V(5).Info("node's taints no longer repel the pod", "pod", klog.KObj(pod), "node", klog.KObj(newNode))
	return fwk.Queue, nil
}

func (pl *OSTaintToleration) isSchedulableAfterTolerationChange(_ klog.Logger, pod *v1.Pod, oldObj, newObj any) (fwk.QueueingHint, error) {
	_, newPod, err := util.As[*v1.Pod](oldObj, newObj)
	if err != nil {
		return fwk.Queue, err
	}
	if !k8scompat.IsTargetPod(pod, newPod) {
		return fwk.QueueSkip, nil
	}
	return fwk.Queue, nil
}
