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

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/oracle"
	"github.com/windows-aware/windows-aware/pkg/apis/config/scheme"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
)

// judge is the verdict of pod (which must have no conflict) under the
// default args, on an inventory fed nodes and Karpenter NodePools through
// its informers' transforms and handlers.
func judge(t *testing.T, nodes []*v1.Node, pools []*unstructured.Unstructured, pod *v1.Pod, osToleration bool) Verdict {
	t.Helper()
	dr, err := podneeds.New(scheme.DefaultArgs())
	if err != nil {
		t.Fatal(err)
	}
	inv := New()
	for _, n := range nodes {
		obj, _ := Project(n)
		inv.NodeHandler().OnAdd(obj, true)
	}
	for _, p := range pools {
		obj, _ := ProjectNodePool(p)
		inv.NodePoolHandler().OnAdd(obj, true)
	}
	d := dr.Decide(pod, nil)
	if d.Conflict() != "" {
		t.Fatalf("conflict %s", d.Conflict())
	}
	return inv.Snapshot().Judge(d, pod, osToleration)
}

// TestJudgeVerdict: the whole verdict of a pod on a cluster: the pools a
// taint repels it from, in the classes' order, and the taints (each named
// once, pools unnamed by a label named by their platform), the classes whose build label is not
// a build, a NodePool's taints, and a HostProcess pod, which any Windows
// build runs.
func TestJudgeVerdict(t *testing.T) {
	osTaint := fixture.WindowsTaint
	gpu := v1.Taint{Key: "gpu", Value: "true", Effect: v1.TaintEffectNoSchedule}
	drain := v1.Taint{Key: "drain", Effect: v1.TaintEffectNoExecute}
	cluster := []*v1.Node{
		node("l1", "sys", "linux", ""),
		node("w19", "win19", "windows", oracle.Build2019, osTaint),
		node("w22", "win22", "windows", oracle.Build2022, osTaint),
		node("u22", "", "windows", oracle.Build2022, osTaint, drain),
		node("g25", "gpu25", "windows", oracle.Build2025, osTaint, gpu),
		node("bad", "typo", "windows", "2022", osTaint),
	}
	const (
		nano22 = "mcr.microsoft.com/windows/nanoserver:ltsc2022"
		nginx  = "nginx:1.27"
	)
	builds := []string{oracle.Build2019, oracle.Build2022, oracle.Build2025}
	karpWin := func(taints ...map[string]any) *unstructured.Unstructured {
		return nodePool("karpwin", []map[string]any{req(v1.LabelOSStable, "In", "windows"), req(v1.LabelWindowsBuild, "In", oracle.Build2019)}, taints...)
	}
	tests := []struct {
		name         string
		pod          *v1.Pod
		pools        []*unstructured.Unstructured
		osToleration bool
		want         Verdict // Malformed aside: every case's is pool typo
		runs         bool
	}{
		{
			name: "ltsc2022 without the OS toleration: every pool that runs it repelled, the OS taint named once",
			pod:  pod([]string{nano22}),
			want: Verdict{OSNodes: 5, TaintedPools: []string{"the unpooled windows 10.0.20348 nodes", "pool win22", "pool gpu25"},
				Taints: []string{"os=windows:NoSchedule"}, WindowsBuilds: builds},
		},
		{
			name: "ltsc2022 with the OS toleration: the other taints, by pool",
			pod:  pod([]string{nano22}), osToleration: true,
			want: Verdict{Fit: 1, OSNodes: 5, TaintedPools: []string{"the unpooled windows 10.0.20348 nodes", "pool gpu25"},
				Taints: []string{"drain:NoExecute", "gpu=true:NoSchedule"}, WindowsBuilds: builds},
			runs: true,
		},
		{
			name: "a HostProcess pod: every Windows build, the malformed one too",
			pod:  fixture.HostProcess(pod([]string{nano22})), osToleration: true,
			want: Verdict{Fit: 3, OSNodes: 5, TaintedPools: []string{"the unpooled windows 10.0.20348 nodes", "pool gpu25"},
				Taints: []string{"drain:NoExecute", "gpu=true:NoSchedule"}, WindowsBuilds: builds},
			runs: true,
		},
		{
			name: "a Linux pod: the Linux node",
			pod:  pod([]string{nginx}), osToleration: true,
			want: Verdict{Fit: 1, OSNodes: 1, WindowsBuilds: builds},
			runs: true,
		},
		{
			name: "a NodePool of another build runs a HostProcess pod",
			pod:  fixture.HostProcess(pod([]string{nano22})), osToleration: true,
			pools: []*unstructured.Unstructured{karpWin()},
			want: Verdict{Fit: 3, NodePools: []string{"karpwin"}, OSNodes: 5, TaintedPools: []string{"the unpooled windows 10.0.20348 nodes", "pool gpu25"},
				Taints: []string{"drain:NoExecute", "gpu=true:NoSchedule"}, WindowsBuilds: builds},
			runs: true,
		},
		{
			name: "a NodePool whose taint the pod does not tolerate: named among the tainted pools",
			pod:  pod([]string{"mcr.microsoft.com/windows/servercore:ltsc2019"}), osToleration: true,
			pools: []*unstructured.Unstructured{karpWin(map[string]any{"key": "team", "value": "a", "effect": "NoSchedule"})},
			want: Verdict{Fit: 1, OSNodes: 5, TaintedPools: []string{"pool karpwin"}, Taints: []string{"team=a:NoSchedule"},
				WindowsBuilds: builds},
			runs: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := judge(t, cluster, tt.pools, tt.pod, tt.osToleration)
			var malformed []string
			for _, c := range got.Malformed {
				malformed = append(malformed, PoolName(c))
			}
			if diff := cmp.Diff([]string{"pool typo"}, malformed); diff != "" {
				t.Errorf("malformed classes (-want +got):\n%s", diff)
			}
			got.Malformed = nil
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
			if got.Runs() != tt.runs {
				t.Errorf("Runs() = %v, want %v", got.Runs(), tt.runs)
			}
		})
	}
}
