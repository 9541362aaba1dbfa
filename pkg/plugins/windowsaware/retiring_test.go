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
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// retiring labels a node as an administrator marks an old pool.
func retiring(n *v1.Node) *v1.Node {
	n.Labels[wellknown.LabelRetiring] = wellknown.RetiringValue
	return n
}

// retiringCases are pods over nodes that all run them, some retiring, with
// the normalized scores Score must give.
var retiringCases = []struct {
	name  string
	pod   func() *v1.Pod
	nodes func() []*v1.Node
	want  map[string]int64
}{
	{
		name: "no node retiring: the exact build wins",
		pod:  func() *v1.Pod { return pod(img2022).Obj() },
		nodes: func() []*v1.Node {
			return []*v1.Node{fixture.WindowsNode("w22", "10.0.20348"), fixture.WindowsNode("w25", "10.0.26100")}
		},
		want: map[string]int64{"w22": 100, "w25": 0},
	},
	{
		name: "the exact build retiring: a compatible build that stays wins",
		pod:  func() *v1.Pod { return pod(img2022).Obj() },
		nodes: func() []*v1.Node {
			return []*v1.Node{retiring(fixture.WindowsNode("w22", "10.0.20348")), fixture.WindowsNode("w25", "10.0.26100")}
		},
		want: map[string]int64{"w22": 0, "w25": 100},
	},
	{
		name: "a compatible build retiring: the exact build wins by more",
		pod:  func() *v1.Pod { return pod(img2022).Obj() },
		nodes: func() []*v1.Node {
			return []*v1.Node{fixture.WindowsNode("w22", "10.0.20348"), retiring(fixture.WindowsNode("w25", "10.0.26100")), fixture.WindowsNode("w25b", "10.0.26100")}
		},
		want: map[string]int64{"w22": 100, "w25": 0, "w25b": 66},
	},
	{
		name: "a pod that names no build leaves the retiring nodes",
		pod:  func() *v1.Pod { return withOS(pod(imgWinNoTag), v1.Windows) },
		nodes: func() []*v1.Node {
			return []*v1.Node{retiring(fixture.WindowsNode("w19", "10.0.17763")), fixture.WindowsNode("w25", "10.0.26100")}
		},
		want: map[string]int64{"w19": 0, "w25": 100},
	},
	{
		name:  "a linux pod leaves a retiring linux node",
		pod:   func() *v1.Pod { return pod(imgLinux).Obj() },
		nodes: func() []*v1.Node { return []*v1.Node{retiring(fixture.LinuxNode("l1")), fixture.LinuxNode("l2")} },
		want:  map[string]int64{"l1": 0, "l2": 100},
	},
	{
		name: "only retiring nodes run the pod: they rank alike",
		pod:  func() *v1.Pod { return pod(img2019).Obj() },
		nodes: func() []*v1.Node {
			return []*v1.Node{retiring(fixture.WindowsNode("w19a", "10.0.17763")), retiring(fixture.WindowsNode("w19b", "10.0.17763"))}
		},
		want: map[string]int64{"w19a": 0, "w19b": 0},
	},
	{
		name: "a label value other than true retires nothing",
		pod:  func() *v1.Pod { return withOS(pod(imgWinNoTag), v1.Windows) },
		nodes: func() []*v1.Node {
			n := fixture.WindowsNode("w19", "10.0.17763")
			n.Labels[wellknown.LabelRetiring] = "false"
			return []*v1.Node{n, fixture.WindowsNode("w25", "10.0.26100")}
		},
		want: map[string]int64{"w19": 0, "w25": 0},
	},
}

// TestScoreRetiring: through the framework, on nodes the class table has
// not been told of (Score reads their labels).
func TestScoreRetiring(t *testing.T) {
	for _, tt := range retiringCases {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, scores(t, tt.pod(), tt.nodes())); diff != "" {
				t.Errorf("scores (-want +got):\n%s", diff)
			}
		})
	}
}

// TestScoreRetiringByClass: the same ranking from the class table, which
// PreFilter judges and Score indexes, with PreScore skipping the pods whose
// nodes all rank alike.
func TestScoreRetiringByClass(t *testing.T) {
	for _, tt := range retiringCases {
		t.Run(tt.name, func(t *testing.T) {
			nodes := tt.nodes()
			pl, _ := classedPlugin(t, nodes...)
			p := tt.pod()
			ctx := context.Background()
			state := newState()
			infos := make([]fwk.NodeInfo, len(nodes))
			for i, n := range nodes {
				infos[i] = nodeInfo(n)
			}
			if _, s := pl.PreFilter(ctx, state, p, infos); !s.IsSuccess() {
				t.Fatalf("PreFilter: %v", s)
			}
			got := map[string]int64{}
			if s := pl.PreScore(ctx, state, p, infos); s.IsSkip() {
				for _, n := range nodes {
					got[n.Name] = 0
				}
			} else {
				var list fwk.NodeScoreList
				for _, ni := range infos {
					if !pl.Filter(ctx, state, p, ni).IsSuccess() {
						t.Fatalf("node %s rejected", ni.Node().Name)
					}
					score, s := pl.Score(ctx, state, p, ni)
					if !s.IsSuccess() {
						t.Fatalf("Score: %v", s)
					}
					list = append(list, fwk.NodeScore{Name: ni.Node().Name, Score: score})
				}
				pl.NormalizeScore(ctx, state, p, list)
				for _, ns := range list {
					got[ns.Name] = ns.Score
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("scores (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRetiringNeverFilters: a pod only the retiring build runs still fits
// the retiring nodes, which PreFilter names, and is left to them; the
// label takes no node from a pod.
func TestRetiringNeverFilters(t *testing.T) {
	nodes := []*v1.Node{
		retiring(fixture.WindowsNode("w19", "10.0.17763")),
		fixture.WindowsNode("w22", "10.0.20348"),
		fixture.WindowsNode("w25", "10.0.26100"),
		fixture.LinuxNode("l1"), fixture.LinuxNode("l2"), fixture.LinuxNode("l3"),
	}
	tests := []struct {
		name      string
		pod       *v1.Pod
		wantFit   []string
		wantNamed []string // nil: PreFilter names no nodes
		wantSkip  bool     // PreScore skips: every fitting node ranks alike
	}{
		{name: "ltsc2019 pod", pod: pod(img2019).Obj(), wantFit: []string{"w19"}, wantNamed: []string{"w19"}, wantSkip: true},
		{name: "ltsc2022 pod", pod: pod(img2022).Obj(), wantFit: []string{"w22", "w25"}, wantNamed: []string{"w22", "w25"}},
		{name: "windows pod of no build", pod: withOS(pod(imgWinNoTag), v1.Windows), wantFit: []string{"w19", "w22", "w25"}, wantNamed: []string{"w19", "w22", "w25"}},
		{name: "linux pod", pod: pod(imgLinux).Obj(), wantFit: []string{"l1", "l2", "l3"}, wantSkip: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl, _ := classedPlugin(t, nodes...)
			ctx := context.Background()
			state := newState()
			infos := make([]fwk.NodeInfo, len(nodes))
			for i, n := range nodes {
				infos[i] = nodeInfo(n)
			}
			res, s := pl.PreFilter(ctx, state, tt.pod, infos)
			if !s.IsSuccess() {
				t.Fatalf("PreFilter: %v", s)
			}
			var named []string
			if res != nil {
				named = sets.List(res.NodeNames)
			}
			if diff := cmp.Diff(tt.wantNamed, named); diff != "" {
				t.Errorf("PreFilter names (-want +got):\n%s", diff)
			}
			var fit []string
			var feasible []fwk.NodeInfo
			for _, ni := range infos {
				if pl.Filter(ctx, state, tt.pod, ni).IsSuccess() {
					fit = append(fit, ni.Node().Name)
					feasible = append(feasible, ni)
				}
			}
			if diff := cmp.Diff(tt.wantFit, fit); diff != "" {
				t.Errorf("Filter passes (-want +got):\n%s", diff)
			}
			if got := pl.PreScore(ctx, state, tt.pod, feasible).IsSkip(); got != tt.wantSkip {
				t.Errorf("PreScore skips = %v, want %v", got, tt.wantSkip)
			}
		})
	}
}

// TestScoreRetiringAllocations: Score is a lookup for a node of a known
// class, retiring or not.
func TestScoreRetiringAllocations(t *testing.T) {
	nodes := []*v1.Node{retiring(fixture.WindowsNode("w22", "10.0.20348")), fixture.WindowsNode("w25", "10.0.26100")}
	pl, _ := classedPlugin(t, nodes...)
	ctx := context.Background()
	p := pod(img2022).Obj()
	state := newState()
	infos := []fwk.NodeInfo{nodeInfo(nodes[0]), nodeInfo(nodes[1])}
	if _, s := pl.PreFilter(ctx, state, p, infos); !s.IsSuccess() {
		t.Fatalf("PreFilter: %v", s)
	}
	for _, ni := range infos {
		if allocs := testing.AllocsPerRun(200, func() { _, _ = pl.Score(ctx, state, p, ni) }); allocs > 0 {
			t.Errorf("Score on %s allocates %v times, want 0", ni.Node().Name, allocs)
		}
	}
}
