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

package podneeds

import (
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	v1helper "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
)

// ReasonUntoleratedTaint is the reason upstream TaintToleration gives for a
// node whose taints repel a pod.
const ReasonUntoleratedTaint = "node(s) had untolerated taint(s)"

// OSToleration is the implicit toleration a pod gets on the nodes of the OS
// it was matched to: the taints that keep other OSes off them
// (os=windows:NoSchedule), as the profile's osTaints configures them.
type OSToleration struct {
	os     string
	taints *config.OSTaints
}

// Tolerates reports whether t is the OS taint of a node that runs nodeOS,
// the OS the pod was matched to. A node that names no OS has no OS taint:
// a missing label matches nothing, so a taint with an empty value stays an
// ordinary taint there.
func (o *OSToleration) Tolerates(t *v1.Taint, nodeOS string) bool {
	if o == nil || nodeOS == "" {
		return false
	}
	return strings.EqualFold(t.Value, nodeOS) && strings.EqualFold(o.os, nodeOS) &&
		slices.Contains(o.taints.Keys, t.Key) && slices.Contains(o.taints.Effects, t.Effect)
}

// AnyOSToleration tolerates every taint whose value is the node's OS, on
// any key and effect: the widest implicit toleration a pod can be granted,
// for a queueing hint that cannot see the pod's decision. It is nil on a
// node that names no OS, which has no OS taint.
func AnyOSToleration(node *v1.Node) *OSToleration {
	os := NodeOS(node)
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
	return &OSToleration{os: os, taints: taints}
}

// Untolerated reports whether the node has a NoSchedule or NoExecute taint
// that neither the pod's tolerations nor its implicit OS toleration
// tolerate: the rule of upstream TaintToleration's Filter, with the OS
// toleration added. comparisonOperators follows the scheduler's feature
// gate of that name. Unlike v1helper.FindMatchingUntoleratedTaint it
// allocates nothing.
func Untolerated(logger klog.Logger, node *v1.Node, nodeOS string, tolerations []v1.Toleration, implicit *OSToleration, comparisonOperators bool) bool {
	return UntoleratedTaint(logger, node, nodeOS, tolerations, implicit, comparisonOperators) != nil
}

// UntoleratedTaint is the first taint by which Untolerated holds, pointing
// into the node's taints; nil when there is none.
func UntoleratedTaint(logger klog.Logger, node *v1.Node, nodeOS string, tolerations []v1.Toleration, implicit *OSToleration, comparisonOperators bool) *v1.Taint {
	for i := range node.Spec.Taints {
		t := &node.Spec.Taints[i]
		if t.Effect != v1.TaintEffectNoSchedule && t.Effect != v1.TaintEffectNoExecute {
			continue
		}
		if implicit.Tolerates(t, nodeOS) {
			continue
		}
		if !v1helper.TolerationsTolerateTaint(logger, tolerations, t, comparisonOperators) {
			return t
		}
	}
	return nil
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

// OSToleration is the implicit OS toleration of a pod of this decision,
// nil when it was matched to no OS or osTaints.tolerate is off.
func (d *Decision) OSToleration() *OSToleration { return d.osToleration }

// OSTolerations spells out, as tolerations in the pod's own terms, the OS
// taints a pod of this decision tolerates implicitly: one per configured
// key, effect and spelling of the OS. They tolerate no more than the
// implicit toleration does (an Equal toleration matches one spelling), so
// that writing them into a pod lets other components (autoscalers, the
// stock scheduler) see what the scheduler allows, and nothing more.
func (d *Decision) OSTolerations() []v1.Toleration {
	o := d.osToleration
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

// TaintsRepel reports whether the node's taints keep a pod of this
// decision off it, as the scheduler's OSTaintToleration judges them: the
// pod's own tolerations, plus its implicit OS toleration. The reason is
// the one the scheduler gives.
func (d *Decision) TaintsRepel(pod *v1.Pod, node *v1.Node, comparisonOperators bool) (repels bool, reason string) {
	if d.RepellingTaint(pod, node, comparisonOperators) != nil {
		return true, ReasonUntoleratedTaint
	}
	return false, ""
}

// RepellingTaint is the first taint by which TaintsRepel holds; nil when
// none does.
func (d *Decision) RepellingTaint(pod *v1.Pod, node *v1.Node, comparisonOperators bool) *v1.Taint {
	return UntoleratedTaint(klog.Background(), node, NodeOS(node), pod.Spec.Tolerations, d.osToleration, comparisonOperators)
}
