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

package explain

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// Pin is one constraint of a workload's template, besides its images,
// that ties it to Windows nodes: a nodeSelector entry, an expression of a
// required node affinity term, or an entry of its RuntimeClass's
// scheduling.nodeSelector.
type Pin struct {
	// From is where it is written: nodeSelector, affinity, or
	// "runtimeClass NAME".
	From     string   `json:"from"`
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values,omitempty"`
	// Term and Expression index an affinity pin in the template's
	// required terms, for the patch that changes it.
	Term       int `json:"term,omitempty"`
	Expression int `json:"expression,omitempty"`
	// To is the value that selects the nodes once they move, where the
	// key is one the move rewrites (the build, AKS's OS SKU).
	To string `json:"to,omitempty"`
}

// String says the pin as it is written.
func (p Pin) String() string {
	if p.Operator == string(v1.NodeSelectorOpIn) && len(p.Values) == 1 && p.From != "affinity" {
		return fmt.Sprintf("%s %s=%s", p.From, p.Key, p.Values[0])
	}
	return fmt.Sprintf("%s %s %s [%s]", p.From, p.Key, p.Operator, strings.Join(p.Values, " "))
}

// unmodelledLabels are node labels an OS move rewrites to values the plan
// cannot foresee: a pin on one is unknown, never ready.
var unmodelledLabels = []string{"kubernetes.azure.com/node-image-version"}

// buildLabels are the node labels whose values name a Windows build, and
// that the plan rewrites when it moves a node (Simulate).
var buildLabels = []string{podneeds.LabelWindowsBuild, wellknown.LabelAKSOSSKU}

// pinsOf lists a template's pins: its own nodeSelector and required
// affinity expressions, and its RuntimeClass's nodeSelector.
func pinsOf(template *v1.Pod, rc *nodev1.RuntimeClass) []Pin {
	var pins []Pin
	for _, k := range slices.Sorted(maps.Keys(template.Spec.NodeSelector)) {
		pins = append(pins, Pin{From: "nodeSelector", Key: k, Operator: string(v1.NodeSelectorOpIn), Values: []string{template.Spec.NodeSelector[k]}})
	}
	if a := template.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for t, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			for x, req := range term.MatchExpressions {
				pins = append(pins, Pin{From: "affinity", Key: req.Key, Operator: string(req.Operator), Values: req.Values, Term: t, Expression: x})
			}
		}
	}
	if rc != nil && rc.Scheduling != nil {
		for _, k := range slices.Sorted(maps.Keys(rc.Scheduling.NodeSelector)) {
			pins = append(pins, Pin{From: "runtimeClass " + rc.Name, Key: k, Operator: string(v1.NodeSelectorOpIn), Values: []string{rc.Scheduling.NodeSelector[k]}})
		}
	}
	return pins
}

// unreadablePin says why the plan cannot tell where a pin leads once the
// nodes move: a comparison of a build label (a build is not an integer),
// or a label the move rewrites to a value the plan cannot know. "" when
// it can.
func unreadablePin(p Pin) string {
	switch {
	case slices.Contains(buildLabels, p.Key) && (p.Operator == string(v1.NodeSelectorOpGt) || p.Operator == string(v1.NodeSelectorOpLt)):
		return fmt.Sprintf("%s: %s compares %s as an integer, which a Windows build is not: the plan cannot map it to builds", p, p.Operator, p.Key)
	case slices.Contains(unmodelledLabels, p.Key):
		return fmt.Sprintf("%s: the move rewrites %s to a value the plan cannot foresee", p, p.Key)
	}
	return ""
}

// selects is whether the pin admits a node, the expression parsed once.
func (p Pin) selects() func(n *v1.Node) bool {
	if p.From != "affinity" {
		return func(n *v1.Node) bool { return n.Labels[p.Key] == p.Values[0] }
	}
	sel := nodeaffinity.NewLazyErrorNodeSelector(&v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
		MatchExpressions: []v1.NodeSelectorRequirement{{Key: p.Key, Operator: v1.NodeSelectorOperator(p.Operator), Values: p.Values}}}}})
	return func(n *v1.Node) bool {
		ok, _ := sel.Match(n)
		return ok
	}
}

// stalePins are the pins that admit some of the Windows nodes before the
// move and none after it, each with the value that selects the moved
// nodes when its key is one the move rewrites.
func stalePins(pins []Pin, before, after []*v1.Node) []Pin {
	var stale []Pin
	for _, p := range pins {
		selects := p.selects()
		if !slices.ContainsFunc(before, selects) || slices.ContainsFunc(after, selects) {
			continue
		}
		if slices.Contains(buildLabels, p.Key) {
			p.To = movedValue(p.Key, selects, before, after)
		}
		stale = append(stale, p)
	}
	return stale
}

// deadPins are the pins that admit none of the Windows nodes today.
func deadPins(pins []Pin, nodes []*v1.Node) []Pin {
	var dead []Pin
	for _, p := range pins {
		if !slices.ContainsFunc(nodes, p.selects()) {
			dead = append(dead, p)
		}
	}
	return dead
}

// movedValue is the value of the pin's key on a node the pin selected
// before the move, once that node has moved: the same node, after.
func movedValue(key string, selects func(*v1.Node) bool, before, after []*v1.Node) string {
	moved := make(map[string]*v1.Node, len(after))
	for _, n := range after {
		moved[n.Name] = n
	}
	for _, n := range before {
		if a := moved[n.Name]; a != nil && selects(n) && a.Labels[key] != n.Labels[key] {
			return a.Labels[key]
		}
	}
	return ""
}

// windowsOnly keeps the Windows nodes.
func windowsOnly(nodes []*v1.Node) []*v1.Node {
	var out []*v1.Node
	for _, n := range nodes {
		if strings.EqualFold(podneeds.NodeOS(n), windows.OSWindows) {
			out = append(out, n)
		}
	}
	return out
}
