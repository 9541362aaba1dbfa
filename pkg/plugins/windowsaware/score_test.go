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
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/windows-aware/windows-aware/internal/fixture"
)

func newState() *framework.CycleState { return framework.NewCycleState() }

// scores runs PreFilter, PreScore and Score through the framework over
// nodes, all of which must be feasible, and returns the normalized scores.
func scores(t *testing.T, pod *v1.Pod, nodes []*v1.Node) map[string]int64 {
	t.Helper()
	f := newFramework(t, defaultArgs(), nodes)
	ctx := context.Background()
	state := framework.NewCycleState()
	if _, s, _ := f.RunPreFilterPlugins(ctx, state, pod); !s.IsSuccess() {
		t.Fatalf("PreFilter: %v", s)
	}
	var infos []fwk.NodeInfo
	for _, n := range nodes {
		infos = append(infos, nodeInfo(n))
	}
	if s := f.RunPreScorePlugins(ctx, state, pod, infos); !s.IsSuccess() {
		t.Fatalf("PreScore: %v", s)
	}
	ns, s := f.RunScorePlugins(ctx, state, pod, infos)
	if !s.IsSuccess() {
		t.Fatalf("Score: %v", s)
	}
	got := map[string]int64{}
	for _, n := range ns {
		got[n.Name] = n.TotalScore
	}
	return got
}

func TestScore(t *testing.T) {
	tests := []struct {
		name  string
		pod   *v1.Pod
		nodes []*v1.Node
		want  map[string]int64
	}{
		{
			name:  "exact build beats a compatible one",
			pod:   pod(img2022).Obj(),
			nodes: []*v1.Node{fixture.WindowsNode("w22", "10.0.20348"), fixture.WindowsNode("w25", "10.0.26100")},
			want:  map[string]int64{"w22": 100, "w25": 0},
		},
		{
			name: "closer revision wins among exact builds",
			pod:  pod(img2019Rev).Obj(), // 10.0.17763.437
			nodes: []*v1.Node{
				fixture.WindowsNode("r437", "10.0.17763", fixture.WithKernel("10.0.17763.437")),
				fixture.WindowsNode("r500", "10.0.17763", fixture.WithKernel("10.0.17763.500")),
				fixture.WindowsNode("r4131", "10.0.17763", fixture.WithKernel("10.0.17763.4131")),
				fixture.WindowsNode("no-revision", "10.0.17763", fixture.WithKernel("")),
			},
			want: map[string]int64{"r437": 100, "r500": 99, "r4131": 94, "no-revision": 0},
		},
		{
			name:  "2022 and 2025 images: 2025 is the exact host",
			pod:   pod(img2022, img2025).Obj(),
			nodes: []*v1.Node{fixture.WindowsNode("w25a", "10.0.26100"), fixture.WindowsNode("w25b", "10.0.26100", fixture.WithKernel(""))},
			want:  map[string]int64{"w25a": 0, "w25b": 0},
		},
		{
			name:  "no build requirement scores every node the same",
			pod:   pod(imgWinNoTag).Obj(),
			nodes: []*v1.Node{fixture.WindowsNode("w19", "10.0.17763"), fixture.WindowsNode("w25", "10.0.26100")},
			want:  map[string]int64{"w19": 0, "w25": 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, scores(t, tt.pod, tt.nodes)); diff != "" {
				t.Errorf("scores (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPreScoreSkipsPodsWithoutBuild(t *testing.T) {
	pl, _ := newWindowsAware(defaultArgs())
	state := newState()
	if _, s := pl.PreFilter(t.Context(), state, pod(imgLinux).Obj(), nil); !s.IsSuccess() {
		t.Fatal(s)
	}
	if s := pl.PreScore(t.Context(), state, pod(imgLinux).Obj(), nil); s.Code() != fwk.Skip {
		t.Errorf("PreScore = %v, want Skip", s)
	}
}
