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

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// TestFilterReadsTheStateItIsGiven runs two cycles' PreFilter, then
// filters with each cycle's state, and with a clone of the first (as
// preemption does): each verdict is that of the pod whose state it is, not
// that of the cycle PreFilter saw last.
func TestFilterReadsTheStateItIsGiven(t *testing.T) {
	nodes := testNodes()
	f := newFramework(t, defaultArgs(), nodes)
	ctx := context.Background()
	linuxPod := withOS(pod("nginx"), v1.Linux)
	windowsPod := pod("mcr.microsoft.com/windows/servercore:ltsc2022").Obj()

	linuxState, windowsState := framework.NewCycleState(), framework.NewCycleState()
	for _, c := range []struct {
		state fwk.CycleState
		pod   *v1.Pod
	}{{linuxState, linuxPod}, {windowsState, windowsPod}} {
		if _, s, _ := f.RunPreFilterPlugins(ctx, c.state, c.pod); !s.IsSuccess() {
			t.Fatalf("PreFilter %s: %v", c.pod.Spec.Containers[0].Image, s)
		}
	}
	byName := map[string]*v1.Node{}
	for _, n := range nodes {
		byName[n.Name] = n
	}
	for _, tt := range []struct {
		name  string
		state fwk.CycleState
		pod   *v1.Pod
		fits  map[string]bool
	}{
		{"the first cycle's state", linuxState, linuxPod, map[string]bool{"linux": true, "win2022": false}},
		{"the last cycle's state", windowsState, windowsPod, map[string]bool{"linux": false, "win2022": true, "win2025": true}},
		{"a clone of the first cycle's state", linuxState.Clone(), linuxPod, map[string]bool{"linux": true, "win2022": false, "win2025": false}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for node, want := range tt.fits {
				if got := f.RunFilterPlugins(ctx, tt.state, tt.pod, nodeInfo(byName[node])).IsSuccess(); got != want {
					t.Errorf("node %s: fits %v, want %v", node, got, want)
				}
			}
		})
	}
}
