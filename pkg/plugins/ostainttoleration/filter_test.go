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

package ostainttoleration

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/pkg/plugins/osmatch"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
)

// match is a WindowsAware decision, as the cycle state holds it.
type match struct {
	toleration *podneeds.OSToleration
}

func (m *match) Clone() fwk.StateData                 { return m }
func (m *match) OSToleration() *podneeds.OSToleration { return m.toleration }
func (m *match) OSOf(node *v1.Node) string            { return podneeds.NodeOS(node) }

// TestFilter: without WindowsAware's match the plugin is upstream
// TaintToleration; with it, the pod tolerates its OS's taints and no
// other.
func TestFilter(t *testing.T) {
	gpu := v1.Taint{Key: "gpu", Value: "x", Effect: v1.TaintEffectNoSchedule}
	matchedWindows := &match{toleration: podneeds.AnyOSToleration(fixture.WindowsNode("w", "10.0.17763"))}
	tests := []struct {
		name  string
		match osmatch.Match // nil: WindowsAware wrote none
		pod   *v1.Pod
		node  *v1.Node
		want  bool
	}{
		{name: "no match, OS taint", pod: pod(img2019).Obj(), node: fixture.WindowsNode("w", "10.0.17763"), want: false},
		{name: "no match, OS taint tolerated by the pod", pod: pod(img2019).Toleration("os").Obj(), node: fixture.WindowsNode("w", "10.0.17763"), want: true},
		{name: "matched to windows, OS taint", match: matchedWindows, pod: pod(img2019).Obj(), node: fixture.WindowsNode("w", "10.0.17763"), want: true},
		{name: "matched to windows, another taint too", match: matchedWindows, pod: pod(img2019).Obj(), node: fixture.WindowsNode("w", "10.0.17763", fixture.WithTaints(fixture.WindowsTaint, gpu)), want: false},
		{name: "matched to no OS taint, OS taint", match: &match{}, pod: pod(imgLinux).Obj(), node: fixture.WindowsNode("w", "10.0.17763"), want: false},
		{name: "untainted node", pod: pod(imgLinux).Obj(), node: fixture.LinuxNode("l"), want: true},
	}
	pl, _ := New(t.Context(), nil, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state := framework.NewCycleState()
			if tt.match != nil {
				state.Write(osmatch.StateKey, tt.match)
			}
			ni := framework.NewNodeInfo()
			ni.SetNode(tt.node)
			status := pl.(fwk.FilterPlugin).Filter(t.Context(), state, tt.pod, ni)
			if got := status.IsSuccess(); got != tt.want {
				t.Fatalf("Filter passes = %v (%v), want %v", got, status, tt.want)
			}
			if !tt.want && (status.Code() != fwk.UnschedulableAndUnresolvable || status.Message() != ErrReasonUntoleratedTaint) {
				t.Errorf("status %v, want UnschedulableAndUnresolvable: %s", status, ErrReasonUntoleratedTaint)
			}
		})
	}
}
