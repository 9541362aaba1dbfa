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
	"fmt"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/oracle"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

func node(name, pool, os, build string, taints ...v1.Taint) *v1.Node {
	n := fixture.Node(name, fixture.NodeOptions{OS: os, Build: build, Taints: taints})
	if pool != "" {
		n.Labels["kubernetes.azure.com/agentpool"] = pool
	}
	return n
}

// describe spells a snapshot's classes as pool/os/build/taints=count.
func describe(s *Snapshot) []string {
	var out []string
	for _, c := range s.Classes {
		var taints []string
		for _, t := range c.Taints {
			taints = append(taints, t.ToString())
		}
		out = append(out, fmt.Sprintf("%s/%s/%s/%s=%d", c.Pool, c.Platform.OS, c.Platform.Build, strings.Join(taints, ","), c.Nodes))
	}
	return out
}

// TestClasses: nodes fall into classes by pool, platform and taints, and
// move between them as they change, each counted once.
func TestClasses(t *testing.T) {
	osTaint := fixture.WindowsTaint
	gpu := v1.Taint{Key: "gpu", Value: "true", Effect: v1.TaintEffectNoSchedule}
	soft := v1.Taint{Key: "soft", Value: "x", Effect: v1.TaintEffectPreferNoSchedule}
	tests := []struct {
		name   string
		events func(inv *Inventory)
		want   []string
	}{{
		name: "alike nodes share a class; Linux first, then Windows by build",
		events: func(inv *Inventory) {
			inv.SetNode(node("w1", "win22", "windows", oracle.Build2022, osTaint))
			inv.SetNode(node("l1", "sys", "linux", ""))
			inv.SetNode(node("w0", "win19", "windows", oracle.Build2019, osTaint))
			inv.SetNode(node("w2", "win22", "windows", oracle.Build2022, osTaint))
			inv.SetNode(node("l2", "sys", "linux", ""))
		},
		want: []string{"sys/linux//=2", "win19/windows/10.0.17763/os=windows:NoSchedule=1", "win22/windows/10.0.20348/os=windows:NoSchedule=2"},
	}, {
		name: "taints set classes apart; PreferNoSchedule is not read",
		events: func(inv *Inventory) {
			inv.SetNode(node("w1", "win22", "windows", oracle.Build2022, osTaint))
			inv.SetNode(node("w2", "win22", "windows", oracle.Build2022, osTaint, gpu))
			inv.SetNode(node("w3", "win22", "windows", oracle.Build2022, osTaint, soft))
		},
		want: []string{"win22/windows/10.0.20348/os=windows:NoSchedule=2", "win22/windows/10.0.20348/os=windows:NoSchedule,gpu=true:NoSchedule=1"},
	}, {
		name: "a node that changes moves; a status update does not count twice",
		events: func(inv *Inventory) {
			inv.SetNode(node("w1", "win19", "windows", oracle.Build2019))
			inv.SetNode(node("w1", "win19", "windows", oracle.Build2019))
			inv.SetNode(node("w2", "win19", "windows", oracle.Build2019))
			inv.SetNode(node("w1", "win19", "windows", oracle.Build2022))
		},
		want: []string{"win19/windows/10.0.17763/=1", "win19/windows/10.0.20348/=1"},
	}, {
		name: "deleted nodes leave, and a class with them",
		events: func(inv *Inventory) {
			inv.SetNode(node("l1", "", "linux", ""))
			inv.SetNode(node("w1", "", "windows", oracle.Build2019))
			inv.DeleteNode("w1")
			inv.DeleteNode("nope")
		},
		want: []string{"/linux//=1"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inv := New()
			before := inv.Snapshot()
			tt.events(inv)
			s := inv.Snapshot()
			if got := describe(s); !slices.Equal(got, tt.want) {
				t.Errorf("classes\n got %q\nwant %q", got, tt.want)
			}
			if len(before.Classes) != 0 {
				t.Errorf("an earlier snapshot changed: %q", describe(before))
			}
			total := 0
			for _, c := range s.Classes {
				total += c.Nodes
			}
			if s.Nodes != total {
				t.Errorf("Nodes = %d, classes count %d", s.Nodes, total)
			}
		})
	}
}

// TestProject: the informer stores a node stripped to what the decision
// reads, and the class of the projection is the node's.
func TestProject(t *testing.T) {
	n := node("w1", "win22", "windows", oracle.Build2022, fixture.WindowsTaint,
		v1.Taint{Key: "soft", Value: "x", Effect: v1.TaintEffectPreferNoSchedule})
	n.Labels["topology.kubernetes.io/zone"] = "eastus-1"
	n.Labels[wellknown.LabelKarpenterNodePool] = "karp"
	n.Status.Images = []v1.ContainerImage{{Names: []string{"a"}, SizeBytes: 1}}
	n.Annotations = map[string]string{"big": strings.Repeat("x", 1000)}
	obj, err := Project(n)
	if err != nil {
		t.Fatal(err)
	}
	slim := obj.(*v1.Node)
	wantLabels := map[string]string{
		v1.LabelOSStable: "windows", v1.LabelArchStable: "amd64",
		v1.LabelWindowsBuild: oracle.Build2022, wellknown.LabelKarpenterNodePool: "karp",
	}
	for k, v := range wantLabels {
		if slim.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, slim.Labels[k], v)
		}
	}
	if len(slim.Labels) != len(wantLabels) || slim.Annotations != nil || slim.Status.Images != nil || slim.Status.Capacity != nil {
		t.Errorf("projection keeps more than it reads: %+v", slim)
	}
	if len(slim.Spec.Taints) != 1 || slim.Spec.Taints[0] != fixture.WindowsTaint {
		t.Errorf("taints %v, want the NoSchedule one", slim.Spec.Taints)
	}
	if keyOf(slim) != keyOf(n) {
		t.Errorf("the projection's class %+v is not the node's %+v", keyOf(slim), keyOf(n))
	}
}

func nodePool(name string, reqs []map[string]any, taints ...map[string]any) *unstructured.Unstructured {
	var r, ts []any
	for _, q := range reqs {
		r = append(r, q)
	}
	for _, t := range taints {
		ts = append(ts, t)
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{"template": map[string]any{"spec": map[string]any{"requirements": r, "taints": ts}}},
	}}
}

func req(key, op string, values ...string) map[string]any {
	vs := make([]any, len(values))
	for i, v := range values {
		vs[i] = v
	}
	return map[string]any{"key": key, "operator": op, "values": vs}
}

func pod(images []string, mutate ...func(*v1.Pod)) *v1.Pod {
	p := &v1.Pod{}
	p.Spec.SchedulerName = "windows-aware"
	for i, img := range images {
		p.Spec.Containers = append(p.Spec.Containers, v1.Container{Name: fmt.Sprint("c", i), Image: img})
	}
	for _, m := range mutate {
		m(p)
	}
	return p
}

// TestJudge: the verdict of a pod on a cluster's classes and NodePools.
func TestJudge(t *testing.T) {
	osTaint := fixture.WindowsTaint
	gpu := v1.Taint{Key: "gpu", Value: "true", Effect: v1.TaintEffectNoSchedule}
	cluster := []*v1.Node{
		node("l1", "sys", "linux", ""), node("l2", "sys", "linux", ""),
		node("w1", "win22", "windows", oracle.Build2022, osTaint),
		node("w2", "win22", "windows", oracle.Build2022, osTaint),
		node("g1", "gpu25", "windows", oracle.Build2025, osTaint, gpu),
	}
	const (
		iis2016 = "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2016"
		iis2019 = "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019"
		nano22  = "mcr.microsoft.com/windows/nanoserver:ltsc2022"
		nano25  = "mcr.microsoft.com/windows/nanoserver:ltsc2025"
		nginx   = "nginx:1.27"
	)
	tests := []struct {
		name          string
		pod           *v1.Pod
		pools         []*unstructured.Unstructured
		osToleration  bool
		wantFit       int
		wantNodePools []string
		wantTainted   []string
		wantOSNodes   int
	}{
		{name: "linux image: the Linux nodes", pod: pod([]string{nginx}), osToleration: true, wantFit: 2, wantOSNodes: 2},
		{name: "ltsc2022 image: the 2022 nodes, by the OS toleration; 2025's gpu taint repels", pod: pod([]string{nano22}), osToleration: true,
			wantFit: 2, wantTainted: []string{"pool gpu25"}, wantOSNodes: 3},
		{name: "without the OS toleration the OS taint repels", pod: pod([]string{nano22}), osToleration: false,
			wantTainted: []string{"pool win22", "pool gpu25"}, wantOSNodes: 3},
		{name: "ltsc2016 image: no node", pod: pod([]string{iis2016}), osToleration: true, wantOSNodes: 3},
		{name: "ltsc2019 image: a Karpenter pool of 2019 nodes counts", pod: pod([]string{iis2019}), osToleration: true, wantOSNodes: 3,
			pools: []*unstructured.Unstructured{
				nodePool("karp19", []map[string]any{req("kubernetes.io/os", "In", "windows"), req(v1.LabelWindowsBuild, "In", oracle.Build2019)},
					map[string]any{"key": "os", "value": "windows", "effect": "NoSchedule"}),
				nodePool("karplinux", []map[string]any{req("kubernetes.io/os", "In", "linux")}),
			},
			wantNodePools: []string{"karp19"}},
		{name: "a Karpenter pool of another build does not", pod: pod([]string{iis2019}), osToleration: true, wantOSNodes: 3,
			pools: []*unstructured.Unstructured{nodePool("karp22", []map[string]any{req("kubernetes.io/os", "In", "windows"), req(v1.LabelWindowsBuild, "NotIn", oracle.Build2019)})}},
		{name: "a Karpenter pool that leaves the build to its image counts", pod: pod([]string{iis2019}), osToleration: true, wantOSNodes: 3,
			pools:         []*unstructured.Unstructured{nodePool("karpwin", []map[string]any{req("kubernetes.io/os", "In", "windows")})},
			wantNodePools: []string{"karpwin"}},
		{name: "a 2025 image tolerating the gpu taint", pod: pod([]string{nano25}, func(p *v1.Pod) {
			p.Spec.Tolerations = []v1.Toleration{{Key: "gpu", Operator: v1.TolerationOpExists}}
		}), osToleration: true, wantFit: 1, wantOSNodes: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := judge(t, cluster, tt.pools, tt.pod, tt.osToleration)
			if v.Fit != tt.wantFit || !slices.Equal(v.NodePools, tt.wantNodePools) || !slices.Equal(v.TaintedPools, tt.wantTainted) || v.OSNodes != tt.wantOSNodes {
				t.Errorf("verdict %+v, want fit %d, NodePools %q, tainted %q, OS nodes %d", v, tt.wantFit, tt.wantNodePools, tt.wantTainted, tt.wantOSNodes)
			}
			if want := []string{oracle.Build2022, oracle.Build2025}; !slices.Equal(v.WindowsBuilds, want) {
				t.Errorf("Windows builds %q, want %q", v.WindowsBuilds, want)
			}
			if v.Runs() != (tt.wantFit > 0 || len(tt.wantNodePools) > 0) {
				t.Errorf("Runs() = %v", v.Runs())
			}
		})
	}
}

// TestRequirement: Karpenter's operators.
func TestRequirement(t *testing.T) {
	tests := []struct {
		r     Requirement
		value string
		has   bool
		want  bool
	}{
		{Requirement{"In", []string{"a"}}, "a", true, true},
		{Requirement{"In", []string{"a"}}, "b", true, false},
		{Requirement{"In", []string{"a"}}, "", false, false},
		{Requirement{"NotIn", []string{"a"}}, "a", true, false},
		{Requirement{"NotIn", []string{"a"}}, "", false, true},
		{Requirement{"Exists", nil}, "x", true, true},
		{Requirement{"Exists", nil}, "", false, false},
		{Requirement{"DoesNotExist", nil}, "", false, true},
		{Requirement{"Gt", []string{"3"}}, "4", true, true},
		{Requirement{"Lte", []string{"3"}}, "4", true, false},
		{Requirement{"In", []string{"a", "b"}}, "b", true, true},
		{Requirement{"NotIn", []string{"a", "b"}}, "c", true, true},
		{Requirement{"Exists", nil}, "", true, true}, // an empty value is a value
		{Requirement{"DoesNotExist", nil}, "", true, false},
		{Requirement{"Gt", []string{"3"}}, "3", true, false},
		{Requirement{"Gt", []string{"3"}}, "", false, false},
		{Requirement{"Gte", []string{"3"}}, "3", true, true},
		{Requirement{"Gte", []string{"3"}}, "2", true, false},
		{Requirement{"Lt", []string{"3"}}, "2", true, true},
		{Requirement{"Lt", []string{"3"}}, "3", true, false},
		{Requirement{"Lte", []string{"3"}}, "3", true, true},
		{Requirement{"Gt", []string{"3"}}, "10.0.20348", true, false}, // not an integer
		{Requirement{"Gt", []string{"x"}}, "4", true, false},
		{Requirement{"Gt", []string{"1", "2"}}, "4", true, false}, // one bound, or none
		{Requirement{"Gt", nil}, "4", true, false},
		{Requirement{"Someday", nil}, "x", true, false},
	}
	for _, tt := range tests {
		if got := tt.r.Admits(tt.value, tt.has); got != tt.want {
			t.Errorf("%+v admits %q (%v) = %v, want %v", tt.r, tt.value, tt.has, got, tt.want)
		}
	}
}
