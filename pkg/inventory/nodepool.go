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

package inventory

import (
	"slices"
	"strconv"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// NodePoolResource is Karpenter's NodePool, served where Karpenter is
// installed: a pool of nodes the cluster does not have yet but gets when
// a pod needs one.
var NodePoolResource = schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodepools"}

// NodePool is what the inventory reads of a Karpenter NodePool: the
// requirements its nodes are made to (on the labels the decision reads)
// and the taints they get.
type NodePool struct {
	Name string
	// Requirements are the pool's requirements on the labels of
	// readLabels, by key; they are ANDed, as Karpenter ANDs them.
	Requirements map[string][]Requirement
	// Taints are its nodes' NoSchedule and NoExecute taints.
	Taints []v1.Taint
	// node stands in for the pool's nodes where podneeds reads a Node
	// (taints).
	node *v1.Node
}

// Requirement is one of a NodePool's node selector requirements.
type Requirement struct {
	Operator string
	Values   []string
}

// Admits reports whether a node whose label has value (has false: no such
// label) meets the requirement. Karpenter's operators are those of node
// selectors, with Gte and Lte.
func (r Requirement) Admits(value string, has bool) bool {
	switch r.Operator {
	case "In":
		return has && slices.Contains(r.Values, value)
	case "NotIn":
		return !has || !slices.Contains(r.Values, value)
	case "Exists":
		return has
	case "DoesNotExist":
		return !has
	case "Gt", "Lt", "Gte", "Lte":
		if !has || len(r.Values) != 1 {
			return false
		}
		v, err1 := strconv.ParseInt(value, 10, 64)
		bound, err2 := strconv.ParseInt(r.Values[0], 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		switch r.Operator {
		case "Gt":
			return v > bound
		case "Lt":
			return v < bound
		case "Gte":
			return v >= bound
		}
		return v <= bound
	}
	return false // an operator of a later API: claim nothing
}

// Admits reports whether the pool makes nodes whose label key has value
// (has false: no such label).
func (p *NodePool) Admits(key, value string, has bool) bool {
	for _, r := range p.Requirements[key] {
		if !r.Admits(value, has) {
			return false
		}
	}
	return true
}

// nodePoolOf reads a NodePool. ok is false for an object that is not one.
func nodePoolOf(obj any) (*NodePool, bool) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, false
	}
	p := &NodePool{Name: u.GetName(), Requirements: map[string][]Requirement{}}
	reqs, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "requirements")
	for _, r := range reqs {
		m, ok := r.(map[string]any)
		if !ok {
			continue
		}
		key, _ := m["key"].(string)
		if !slices.Contains(readLabels, key) {
			continue
		}
		op, _ := m["operator"].(string)
		req := Requirement{Operator: op}
		values, _ := m["values"].([]any)
		for _, v := range values {
			if s, ok := v.(string); ok {
				req.Values = append(req.Values, s)
			}
		}
		p.Requirements[key] = append(p.Requirements[key], req)
	}
	taints, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "taints")
	for _, t := range taints {
		m, ok := t.(map[string]any)
		if !ok {
			continue
		}
		taint := v1.Taint{}
		taint.Key, _ = m["key"].(string)
		taint.Value, _ = m["value"].(string)
		effect, _ := m["effect"].(string)
		taint.Effect = v1.TaintEffect(effect)
		if taint.Effect == v1.TaintEffectNoSchedule || taint.Effect == v1.TaintEffectNoExecute {
			p.Taints = append(p.Taints, taint)
		}
	}
	p.node = &v1.Node{Spec: v1.NodeSpec{Taints: p.Taints}}
	return p, true
}

// ProjectNodePool is the NodePool informer's transform: the object reduced
// to its name, its requirements on the labels the decision reads and its
// taints, so that the store holds no more of it than nodePoolOf reads.
func ProjectNodePool(obj any) (any, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, nil
	}
	slim := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": u.GetAPIVersion(), "kind": u.GetKind(),
		"metadata": map[string]any{"name": u.GetName(), "uid": string(u.GetUID()), "resourceVersion": u.GetResourceVersion()},
	}}
	var keep []any
	reqs, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "requirements")
	for _, r := range reqs {
		if m, ok := r.(map[string]any); ok {
			if key, _ := m["key"].(string); slices.Contains(readLabels, key) {
				keep = append(keep, r)
			}
		}
	}
	taints, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "taints")
	spec := map[string]any{}
	if keep != nil {
		spec["requirements"] = keep
	}
	if taints != nil {
		spec["taints"] = taints
	}
	slim.Object["spec"] = map[string]any{"template": map[string]any{"spec": spec}}
	return slim, nil
}
