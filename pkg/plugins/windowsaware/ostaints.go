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

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/util"

	"github.com/windows-aware/windows-aware/internal/k8scompat"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
)

// OSTaintTolerationName is the name of the OSTaintToleration plugin.
const OSTaintTolerationName = "OSTaintToleration"

// ErrReasonUntoleratedTaint is the reason upstream TaintToleration gives.
const ErrReasonUntoleratedTaint = podneeds.ReasonUntoleratedTaint

var reasonsUntoleratedTaint = []string{ErrReasonUntoleratedTaint}[:1:1]

// OSTaintToleration is the Filter of upstream TaintToleration, with one
// addition: a pod that WindowsAware matched to an OS tolerates the taints
// that keep other OSes off that OS's nodes (os=windows:NoSchedule), as
// WindowsAwareArgs.osTaints configures them. It replaces TaintToleration at
// the filter extension point; TaintToleration keeps scoring
// PreferNoSchedule taints.
type OSTaintToleration struct {
	features feature.Features
}

var (
	_ fwk.FilterPlugin      = &OSTaintToleration{}
	_ fwk.EnqueueExtensions = &OSTaintToleration{}
	_ fwk.SignPlugin        = &OSTaintToleration{}
)

// NewOSTaintToleration builds the plugin. It has no args of its own: the OS
// taints come with the pod's requirements from WindowsAware.
func NewOSTaintToleration(_ context.Context, _ runtime.Object, _ fwk.Handle) (fwk.Plugin, error) {
	return &OSTaintToleration{features: feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)}, nil
}

// Name returns the plugin's name.
func (pl *OSTaintToleration) Name() string { return OSTaintTolerationName }

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
	// The OS a pod was matched to is WindowsAware's decision, left in the
	// cycle state by its PreFilter. Where there is none (WindowsAware is
	// not in the profile, or the pod needs nothing of it), the pod gets no
	// implicit toleration and this is upstream TaintToleration: without
	// that decision, no OS taint can be known to be the pod's own.
	var implicit *podneeds.OSToleration
	var r *requirements
	if read, err := readRequirements(state); err == nil {
		r, implicit = read, read.OSToleration()
	}
	var os string
	if implicit != nil {
		os = r.osOf(node)
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

// SignPod: the decision follows from the tolerations, and from the OS that
// WindowsAware signs.
func (pl *OSTaintToleration) SignPod(_ context.Context, pod *v1.Pod) ([]fwk.SignFragment, *fwk.Status) {
	return []fwk.SignFragment{{Key: fwk.TolerationsSignerName, Value: fwk.TolerationsSigner(pod)}}, nil
}

// osOf is a node's OS: its class's, so that a pod's filtering reads no
// labels, else its label. r may be nil.
func (r *requirements) osOf(node *v1.Node) string {
	if r != nil {
		if c, ok := r.classes.class(node); ok {
			return r.classes.hosts[c].OS
		}
	}
	return podneeds.NodeOS(node)
}
