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
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	v1helper "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/util"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
)

// OSTaintTolerationName is the name of the OSTaintToleration plugin.
const OSTaintTolerationName = "OSTaintToleration"

// ErrReasonUntoleratedTaint is the reason upstream TaintToleration gives.
const ErrReasonUntoleratedTaint = "node(s) had untolerated taint(s)"

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

// osToleration is the implicit toleration WindowsAware grants a pod: the OS
// it matched the pod to, and the taints of that OS.
type osToleration struct {
	os     string
	taints *config.OSTaints
}

// tolerates reports whether t is the OS taint of node, which runs the OS the
// pod was matched to. A node that names no OS has no OS taint: a missing
// label matches nothing, so a taint with an empty value stays an ordinary
// taint there.
func (o *osToleration) tolerates(t *v1.Taint, nodeOS string) bool {
	if o == nil || nodeOS == "" {
		return false
	}
	return strings.EqualFold(t.Value, nodeOS) && strings.EqualFold(o.os, nodeOS) &&
		slices.Contains(o.taints.Keys, t.Key) && slices.Contains(o.taints.Effects, t.Effect)
}

// Filter rejects a node with a NoSchedule or NoExecute taint the pod does
// not tolerate, by its tolerations or by its OS.
func (pl *OSTaintToleration) Filter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodeInfo fwk.NodeInfo) *fwk.Status {
	if resizeDeferred(pl.features, pod) {
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
	var implicit *osToleration
	var r *requirements
	if read, err := readRequirements(state); err == nil {
		r, implicit = read, read.osToleration
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

// untolerated reports whether node has a taint that repels the pod. Unlike
// v1helper.FindMatchingUntoleratedTaint it allocates nothing.
func (pl *OSTaintToleration) untolerated(logger klog.Logger, node *v1.Node, nodeOS string, tolerations []v1.Toleration, implicit *osToleration) bool {
	for i := range node.Spec.Taints {
		t := &node.Spec.Taints[i]
		if t.Effect != v1.TaintEffectNoSchedule && t.Effect != v1.TaintEffectNoExecute {
			continue
		}
		if implicit.tolerates(t, nodeOS) {
			continue
		}
		if !v1helper.TolerationsTolerateTaint(logger, tolerations, t, pl.features.EnableTaintTolerationComparisonOperators) {
			return true
		}
	}
	return false
}

// EventsToRegister requeues on what can lift a taint's hold: a node added,
// a node's taints changed, or the pod given a toleration.
func (pl *OSTaintToleration) EventsToRegister(_ context.Context) ([]fwk.ClusterEventWithHint, error) {
	return []fwk.ClusterEventWithHint{
		{Event: fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.Add | fwk.UpdateNodeTaint}, QueueingHintFn: pl.isSchedulableAfterNodeChange},
		{Event: fwk.ClusterEvent{Resource: targetPod, ActionType: fwk.UpdatePodToleration}, QueueingHintFn: pl.isSchedulableAfterTolerationChange},
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
	if pl.untolerated(logger, newNode, podneeds.NodeOS(newNode), pod.Spec.Tolerations, anyOSToleration(newNode)) {
		return fwk.QueueSkip, nil
	}
	if oldNode != nil && !pl.untolerated(logger, oldNode, podneeds.NodeOS(oldNode), pod.Spec.Tolerations, anyOSToleration(oldNode)) {
		return fwk.QueueSkip, nil
	}
	logger.V(5).Info("node's taints no longer repel the pod", "pod", klog.KObj(pod), "node", klog.KObj(newNode))
	return fwk.Queue, nil
}

// anyOSToleration tolerates every taint whose value is the node's OS, on
// any key and effect: the widest implicit toleration a pod can be granted.
// It is nil on a node that names no OS, which has no OS taint.
func anyOSToleration(node *v1.Node) *osToleration {
	os := podneeds.NodeOS(node)
	if os == "" {
		return nil
	}
	taints := &config.OSTaints{Tolerate: true}
	for _, t := range node.Spec.Taints {
		if strings.EqualFold(t.Value, os) {
			taints.Keys = append(taints.Keys, t.Key)
			taints.Effects = append(taints.Effects, t.Effect)
		}
	}
	return &osToleration{os: os, taints: taints}
}

func (pl *OSTaintToleration) isSchedulableAfterTolerationChange(_ klog.Logger, pod *v1.Pod, oldObj, newObj any) (fwk.QueueingHint, error) {
	_, newPod, err := util.As[*v1.Pod](oldObj, newObj)
	if err != nil {
		return fwk.Queue, err
	}
	if !isTargetPod(pod, newPod) {
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

// OSTaintSpellings are the values OS taints are written with, besides any
// other case the implicit toleration also accepts: the OS as the
// kubernetes.io/os label spells it (kubeadm, AKS, EKS), and capitalised
// (OpenShift's Windows Machine Config Operator writes os=Windows).
func OSTaintSpellings(os string) []string {
	lower := strings.ToLower(os)
	if lower == "" {
		return nil
	}
	title := strings.ToUpper(lower[:1]) + lower[1:]
	if title == lower {
		return []string{lower}
	}
	return []string{lower, title}
}

// OSTolerations spells out, as tolerations in the pod's own terms, the OS
// taints a pod of this decision tolerates implicitly: one per configured
// key, effect and spelling of the OS. They tolerate no more than the
// implicit toleration does (an Equal toleration matches one spelling), so
// that writing them into a pod lets other components (autoscalers, the
// stock scheduler) see what OSTaintToleration allows, and nothing more.
// Nil when the decision matched the pod to no OS or osTaints.tolerate is
// off.
func (pl *WindowsAware) OSTolerations(d *podneeds.Decision) []v1.Toleration {
	o := pl.osTolerationOf(d)
	if o == nil {
		return nil
	}
	var out []v1.Toleration
	for _, key := range o.taints.Keys {
		for _, effect := range o.taints.Effects {
			for _, value := range OSTaintSpellings(o.os) {
				out = append(out, v1.Toleration{Key: key, Operator: v1.TolerationOpEqual, Value: value, Effect: effect})
			}
		}
	}
	return out
}
