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
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/windows-aware/windows-aware/internal/fixture"
)

// mixedCluster is testNodes plus enough Linux nodes that Windows nodes are
// the minority, as in real mixed clusters.
func mixedCluster() []*v1.Node {
	nodes := testNodes()
	for i := range 20 {
		nodes = append(nodes, fixture.LinuxNode(fmt.Sprintf("linux-%d", i)))
	}
	return nodes
}

func TestPreFilterNarrowsWindowsPods(t *testing.T) {
	tests := []struct {
		name  string
		pod   *v1.Pod
		nodes []*v1.Node
		want  []string // nil: no narrowing
	}{
		{name: "ltsc2019 pod", pod: pod(img2019).Obj(), nodes: mixedCluster(), want: []string{"win2019", "win2019-kernel-only"}},
		{name: "ltsc2022 pod", pod: pod(img2022).Obj(), nodes: mixedCluster(), want: []string{"win2022", "win2025"}},
		{name: "windows pod without build", pod: pod(imgNano).Obj(), nodes: mixedCluster(), want: []string{"win2016", "win2019", "win2022", "win2025", "win2019-kernel-only", "win-banana", "win-unknown"}},
		{name: "linux pod is never narrowed", pod: pod(imgLinux).Obj(), nodes: mixedCluster(), want: nil},
		{name: "a retry of an unschedulable pod lists every node's reason", pod: func() *v1.Pod {
			p := pod(img2019).Obj()
			p.Status.Conditions = []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: v1.PodReasonUnschedulable}}
			return p
		}(), nodes: mixedCluster(), want: nil},
		{name: "no node fits: Filter gives the reasons", pod: pod(img2025).Obj(), nodes: []*v1.Node{fixture.LinuxNode("l1"), fixture.LinuxNode("l2"), fixture.WindowsNode("w", "banana", fixture.WithKernel(""))}, want: nil},
		{name: "most nodes fit: narrowing would not pay", pod: pod(img2019).Obj(), nodes: []*v1.Node{fixture.LinuxNode("l"), fixture.WindowsNode("w1", "10.0.17763"), fixture.WindowsNode("w2", "10.0.17763")}, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFramework(t, defaultArgs(), tt.nodes)
			result, status, _ := f.RunPreFilterPlugins(t.Context(), framework.NewCycleState(), tt.pod)
			if !status.IsSuccess() {
				t.Fatal(status)
			}
			if tt.want == nil {
				if !result.AllNodes() {
					t.Errorf("narrowed to %v, want all nodes", sets.List(result.NodeNames))
				}
				return
			}
			if result.AllNodes() {
				t.Fatalf("not narrowed, want %v", tt.want)
			}
			want := slices.Sorted(slices.Values(tt.want))
			if diff := cmp.Diff(want, sets.List(result.NodeNames)); diff != "" {
				t.Errorf("nodes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestScoreSkippedWhenEveryNodeHasTheTargetBuild: PreScore skips a pod whose
// fitting nodes are all of its own build, unless a revision is asked for.
func TestScoreSkippedWhenEveryNodeHasTheTargetBuild(t *testing.T) {
	for _, tc := range []struct {
		name string
		pod  *v1.Pod
		skip bool
	}{
		{name: "ltsc2019: only 2019 nodes fit", pod: pod(img2019).Obj(), skip: true},
		{name: "ltsc2022: 2022 and 2025 nodes fit", pod: pod(img2022).Obj(), skip: false},
		{name: "a revision is asked for", pod: pod(img2019Rev).Obj(), skip: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl, _ := newWindowsAware(defaultArgs())
			var infos []fwk.NodeInfo
			for _, n := range mixedCluster() {
				infos = append(infos, nodeInfo(n))
			}
			state := newState()
			if _, s := pl.PreFilter(t.Context(), state, tc.pod, infos); !s.IsSuccess() {
				t.Fatal(s)
			}
			s := pl.PreScore(t.Context(), state, tc.pod, infos)
			if got := s.Code() == fwk.Skip; got != tc.skip {
				t.Errorf("PreScore = %v, want skip %v", s, tc.skip)
			}
		})
	}
}

// narrowed runs PreFilter on nodes and returns the names it narrowed the
// pod to (nil: every node) and whether PreScore would skip scoring.
func narrowed(t *testing.T, pl *WindowsAware, p *v1.Pod, nodes []*v1.Node) ([]string, bool) {
	t.Helper()
	var infos []fwk.NodeInfo
	for _, n := range nodes {
		infos = append(infos, nodeInfo(n))
	}
	state := newState()
	result, s := pl.PreFilter(t.Context(), state, p, infos)
	if !s.IsSuccess() {
		t.Fatalf("PreFilter: %v", s)
	}
	skip := pl.PreScore(t.Context(), state, p, infos).Code() == fwk.Skip
	if result == nil {
		return nil, skip
	}
	return sets.List(result.NodeNames), skip
}

// TestNarrowingByClassNamesWhatAWalkNames: with every node in the class
// table, PreFilter names the nodes that fit from the table's sets; the
// names and the scoring shortcut are those of a walk over every node.
func TestNarrowingByClassNamesWhatAWalkNames(t *testing.T) {
	unschedulable := pod(img2019).Obj()
	unschedulable.Status.Conditions = []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: v1.PodReasonUnschedulable}}
	pods := map[string]*v1.Pod{
		"ltsc2019":                 pod(img2019).Obj(),
		"ltsc2019 revision":        pod(img2019Rev).Obj(),
		"ltsc2022":                 pod(img2022).Obj(),
		"ltsc2025":                 pod(img2025).Obj(),
		"windows without build":    pod(imgNano).Obj(),
		"linux":                    pod(imgLinux).Obj(),
		"ltsc2022 and nanoserver":  pod(img2022, imgNano).Obj(),
		"unschedulable before":     unschedulable,
		"windows by spec.os only":  withOS(pod("registry.example/app:1.0"), v1.Windows),
		"linux by spec.os and tag": withOS(pod(imgLinux), v1.Linux),
	}
	for cluster, nodes := range map[string][]*v1.Node{"mixed": mixedCluster(), "windows only": testNodes()[2:]} {
		for name, p := range pods {
			t.Run(cluster+": "+name, func(t *testing.T) {
				walked, _ := classedPlugin(t)
				classed, _ := classedPlugin(t, nodes...)
				if !classed.classes.Current().HoldsAll(len(nodes)) {
					t.Fatal("the class table does not hold every node")
				}
				wantNames, wantSkip := narrowed(t, walked, p, nodes)
				gotNames, gotSkip := narrowed(t, classed, p, nodes)
				if diff := cmp.Diff(wantNames, gotNames); diff != "" {
					t.Errorf("names (-walk +class sets):\n%s", diff)
				}
				if gotSkip != wantSkip {
					t.Errorf("PreScore skips = %v from the class sets, %v from a walk", gotSkip, wantSkip)
				}
			})
		}
	}
}

// TestNarrowingWithATableBehind: a node changed in the snapshot before the
// table was told is named by its old class. Named when it no longer fits,
// Filter rejects it; left out when it has just come to fit, the pod is not
// placed there this time. A node the table does not hold at all makes
// PreFilter walk every node.
func TestNarrowingWithATableBehind(t *testing.T) {
	told := mixedCluster()
	relabelled := func(name, build string) []*v1.Node {
		snapshot := slices.Clone(told)
		for i, n := range snapshot {
			if n.Name == name {
				snapshot[i] = fixture.WindowsNode(name, build)
			}
		}
		return snapshot
	}
	tests := []struct {
		name        string
		snapshot    []*v1.Node
		want        []string
		filterFails string // a named node Filter rejects
	}{
		{
			name:        "a 2019 node relabelled 2022",
			snapshot:    relabelled("win2019", "10.0.20348"),
			want:        []string{"win2019", "win2019-kernel-only"},
			filterFails: "win2019",
		},
		{
			name:     "a 2022 node relabelled 2019",
			snapshot: relabelled("win2022", "10.0.17763"),
			want:     []string{"win2019", "win2019-kernel-only"},
		},
		{
			name:     "a 2019 node added",
			snapshot: append(slices.Clone(told), fixture.WindowsNode("new2019", "10.0.17763")),
			want:     []string{"new2019", "win2019", "win2019-kernel-only"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl, _ := classedPlugin(t, told...)
			p := pod(img2019).Obj()
			got, _ := narrowed(t, pl, p, tt.snapshot)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("names (-want +got):\n%s", diff)
			}
			for _, n := range tt.snapshot {
				if n.Name == tt.filterFails && passes(t, pl, p, n) {
					t.Errorf("Filter admits %s, whose labels say it cannot run the pod", n.Name)
				}
			}
		})
	}
}
