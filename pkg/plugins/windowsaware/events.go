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
	"context"
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/util"

	"github.com/windows-aware/windows-aware/internal/k8scompat"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// EventsToRegister requeues a pod WindowsAware rejected only when a node is
// added or a node's labels change (the OS and build labels are all it reads
// of a node), or when the pod itself changes what it needs (a new image).
// A kernel version is read only where the build label is missing; the
// scheduler has no event for a kernel version change (the kubelet rewrites
// the build label when it restarts on a new build, which is an event).
func (pl *WindowsAware) EventsToRegister(_ context.Context) ([]fwk.ClusterEventWithHint, error) {
	return []fwk.ClusterEventWithHint{
		{Event: fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.Add | fwk.UpdateNodeLabel}, QueueingHintFn: pl.isSchedulableAfterNodeChange},
		{Event: fwk.ClusterEvent{Resource: k8scompat.TargetPod, ActionType: fwk.Update}, QueueingHintFn: pl.isSchedulableAfterPodChange},
	}, nil
}

// isSchedulableAfterPodChange queues the pod when an update changed what
// WindowsAware reads of it: its images, or (for a gated pod) its node
// selector or affinity. The OS and HostProcess cannot change.
func (pl *WindowsAware) isSchedulableAfterPodChange(logger klog.Logger, pod *v1.Pod, oldObj, newObj any) (fwk.QueueingHint, error) {
	oldPod, newPod, err := util.As[*v1.Pod](oldObj, newObj)
	if err != nil {
		return fwk.Queue, err
	}
	if !k8scompat.IsTargetPod(pod, newPod) {
		return fwk.QueueSkip, nil
	}
	if slices.Equal(podneeds.ImageRefs(oldPod), podneeds.ImageRefs(newPod)) &&
		maps.Equal(oldPod.Spec.NodeSelector, newPod.Spec.NodeSelector) &&
		equality.Semantic.DeepEqual(oldPod.Spec.Affinity, newPod.Spec.Affinity) {
		return fwk.QueueSkip, nil
	}
	logger.V(5).Info("the pod's images or node selection changed", "pod", klog.KObj(pod))
	return fwk.Queue, nil
}

// isSchedulableAfterNodeChange queues the pod when the node now fits it and
// did not before.
func (pl *WindowsAware) isSchedulableAfterNodeChange(logger klog.Logger, pod *v1.Pod, oldObj, newObj any) (fwk.QueueingHint, error) {
	oldNode, newNode, err := util.As[*v1.Node](oldObj, newObj)
	if err != nil {
		return fwk.Queue, err
	}
	r, err := pl.requirementsQuiet(pod)
	if err != nil {
		// The pod contradicts itself; no node can change that.
		return fwk.QueueSkip, nil
	}
	if r.VerdictOnNode(newNode) != windows.Fits {
		logger.V(5).Info("node still cannot run the pod's OS or build", "pod", klog.KObj(pod), "node", klog.KObj(newNode))
		return fwk.QueueSkip, nil
	}
	if oldNode != nil && r.VerdictOnNode(oldNode) == windows.Fits {
		logger.V(5).Info("node already ran the pod's OS and build", "pod", klog.KObj(pod), "node", klog.KObj(newNode))
		return fwk.QueueSkip, nil
	}
	logger.V(5).Info("node now runs the pod's OS and build", "pod", klog.KObj(pod), "node", klog.KObj(newNode))
	return fwk.Queue, nil
}
