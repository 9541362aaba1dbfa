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
)

// mixedCluster is testNodes plus enough Linux nodes that Windows nodes are
// the minority, as in real mixed clusters.
func mixedCluster() []*v1.Node {
	nodes := testNodes()
	for i := range 20 {
		nodes = append(nodes, linuxNode(fmt.Sprintf("linux-%d", i)))
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
		{name: "no node fits: Filter gives the reasons", pod: pod(img2025).Obj(), nodes: []*v1.Node{linuxNode("l1"), linuxNode("l2"), windowsNode("w", "banana", "")}, want: nil},
		{name: "most nodes fit: narrowing would not pay", pod: pod(img2019).Obj(), nodes: []*v1.Node{linuxNode("l"), windowsNode("w1", "10.0.17763", ""), windowsNode("w2", "10.0.17763", "")}, want: nil},
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
