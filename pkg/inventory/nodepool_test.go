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
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"
)

// karpenterPool is a NodePool as Karpenter's users write one: requirements
// on labels the decision reads and on others, taints of every effect.
func karpenterPool() *unstructured.Unstructured {
	p := nodePool("win", []map[string]any{
		req(v1.LabelOSStable, "In", "windows"),
		req("topology.kubernetes.io/zone", "In", "eastus-1"),
		req(v1.LabelWindowsBuild, "In", "10.0.20348", "10.0.26100"),
		req(v1.LabelWindowsBuild, "NotIn", "10.0.26100"),
		req(v1.LabelArchStable, "Exists"),
	},
		map[string]any{"key": "os", "value": "windows", "effect": "NoSchedule"},
		map[string]any{"key": "soft", "effect": "PreferNoSchedule"},
		map[string]any{"key": "drain", "effect": "NoExecute"},
	)
	p.SetUID("uid-1")
	p.SetResourceVersion("42")
	p.SetLabels(map[string]string{"team": "a"})
	spec := p.Object["spec"].(map[string]any)
	spec["limits"] = map[string]any{"cpu": "1000"}
	spec["template"].(map[string]any)["spec"].(map[string]any)["nodeClassRef"] = map[string]any{"name": "windows"}
	return p
}

// TestNodePoolOf: the inventory reads a NodePool's requirements on the
// labels the decision reads, ANDed by key, and its NoSchedule and
// NoExecute taints; the same of the whole object and of its projection,
// which keeps nothing else.
func TestNodePoolOf(t *testing.T) {
	full := karpenterPool()
	slim, err := ProjectNodePool(full)
	if err != nil {
		t.Fatal(err)
	}
	wantSlim := map[string]any{
		"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
		"metadata": map[string]any{"name": "win", "uid": "uid-1", "resourceVersion": "42"},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"requirements": []any{
				req(v1.LabelOSStable, "In", "windows"),
				req(v1.LabelWindowsBuild, "In", "10.0.20348", "10.0.26100"),
				req(v1.LabelWindowsBuild, "NotIn", "10.0.26100"),
				req(v1.LabelArchStable, "Exists"),
			},
			"taints": []any{
				map[string]any{"key": "os", "value": "windows", "effect": "NoSchedule"},
				map[string]any{"key": "soft", "effect": "PreferNoSchedule"},
				map[string]any{"key": "drain", "effect": "NoExecute"},
			},
		}}},
	}
	if diff := cmp.Diff(wantSlim, slim.(*unstructured.Unstructured).Object); diff != "" {
		t.Errorf("projection (-want +got):\n%s", diff)
	}

	want := &NodePool{Name: "win",
		Requirements: map[string][]Requirement{
			v1.LabelOSStable:     {{Operator: "In", Values: []string{"windows"}}},
			v1.LabelWindowsBuild: {{Operator: "In", Values: []string{"10.0.20348", "10.0.26100"}}, {Operator: "NotIn", Values: []string{"10.0.26100"}}},
			v1.LabelArchStable:   {{Operator: "Exists"}},
		},
		Taints: []v1.Taint{{Key: "os", Value: "windows", Effect: v1.TaintEffectNoSchedule}, {Key: "drain", Effect: v1.TaintEffectNoExecute}},
	}
	for name, obj := range map[string]any{"the object": full, "its projection": slim} {
		p, ok := nodePoolOf(obj)
		if !ok {
			t.Fatalf("%s: not read as a NodePool", name)
		}
		if diff := cmp.Diff(want, p, cmp.AllowUnexported(NodePool{}), cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".node" }, cmp.Ignore())); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
		if diff := cmp.Diff(want.Taints, p.node.Spec.Taints); diff != "" {
			t.Errorf("%s: the stand-in node's taints (-want +got):\n%s", name, diff)
		}
	}

	// Admits ANDs a key's requirements; a key it has none on admits all.
	for _, tt := range []struct {
		key, value string
		has        bool
		want       bool
	}{
		{v1.LabelWindowsBuild, "10.0.20348", true, true},
		{v1.LabelWindowsBuild, "10.0.26100", true, false}, // In, but NotIn too
		{v1.LabelWindowsBuild, "10.0.17763", true, false},
		{v1.LabelWindowsBuild, "", false, false},
		{v1.LabelOSStable, "linux", true, false},
		{v1.LabelArchStable, "arm64", true, true},
		{v1.LabelArchStable, "", false, false},
		{"topology.kubernetes.io/zone", "westus-2", true, true}, // not read
		{"beta.kubernetes.io/os", "", false, true},
	} {
		if got := want.Admits(tt.key, tt.value, tt.has); got != tt.want {
			t.Errorf("Admits(%s, %q, %v) = %v, want %v", tt.key, tt.value, tt.has, got, tt.want)
		}
	}

	// Anything but a NodePool's unstructured object is not one, and
	// passes the transform unchanged.
	n := node("w1", "", "windows", "10.0.20348")
	if _, ok := nodePoolOf(n); ok {
		t.Error("a Node read as a NodePool")
	}
	if got, err := ProjectNodePool(n); err != nil || got != any(n) {
		t.Errorf("ProjectNodePool(a Node) = %v, %v; want it unchanged", got, err)
	}
}

// TestNodePoolHandler: NodePools come, change and go (a tombstone too),
// and the snapshot lists them by name.
func TestNodePoolHandler(t *testing.T) {
	inv := New()
	h := inv.NodePoolHandler()
	names := func() []string {
		var out []string
		for _, p := range inv.Snapshot().NodePools {
			out = append(out, p.Name+":"+p.Requirements[v1.LabelOSStable][0].Values[0])
		}
		return out
	}
	linux := func(name string) *unstructured.Unstructured {
		return nodePool(name, []map[string]any{req(v1.LabelOSStable, "In", "linux")})
	}
	windows := func(name string) *unstructured.Unstructured {
		return nodePool(name, []map[string]any{req(v1.LabelOSStable, "In", "windows")})
	}
	steps := []struct {
		name  string
		event func()
		want  []string
	}{
		{"added", func() { h.OnAdd(windows("b"), false); h.OnAdd(linux("a"), false); h.OnAdd(linux("c"), false) }, []string{"a:linux", "b:windows", "c:linux"}},
		{"updated", func() { h.OnUpdate(linux("a"), windows("a")) }, []string{"a:windows", "b:windows", "c:linux"}},
		{"deleted", func() { h.OnDelete(linux("c")) }, []string{"a:windows", "b:windows"}},
		{"deleted, seen late", func() { h.OnDelete(cache.DeletedFinalStateUnknown{Key: "b", Obj: windows("b")}) }, []string{"a:windows"}},
		{"not a NodePool", func() { h.OnAdd(node("w1", "", "windows", ""), false); h.OnDelete("a") }, []string{"a:windows"}},
	}
	for _, s := range steps {
		s.event()
		if diff := cmp.Diff(s.want, names()); diff != "" {
			t.Errorf("%s: NodePools (-want +got):\n%s", s.name, diff)
		}
	}
}
