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

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/pkg/plugins/ostainttoleration"
)

// TestFilterAllocations holds the hot path to its budget: nothing for a node
// that passes, one Status for a node that is rejected.
func TestFilterAllocations(t *testing.T) {
	pl, _ := newWindowsAware(defaultArgs())
	taints, _ := ostainttoleration.New(context.Background(), nil, nil)
	filter := func(p *v1.Pod, n *v1.Node) (allocs float64, passed bool) {
		state := newState()
		if _, s := pl.PreFilter(context.Background(), state, p, nil); !s.IsSuccess() {
			t.Fatal(s)
		}
		ni := nodeInfo(n)
		ctx := context.Background()
		allocs = testing.AllocsPerRun(200, func() {
			// As the framework does, the first rejection ends the node's filtering.
			passed = pl.Filter(ctx, state, p, ni).IsSuccess() &&
				taints.(fwk.FilterPlugin).Filter(ctx, state, p, ni).IsSuccess()
		})
		return allocs, passed
	}
	tests := []struct {
		name       string
		pod        *v1.Pod
		node       *v1.Node
		wantPass   bool
		wantAllocs float64
	}{
		{name: "linux pod, linux node", pod: pod(imgLinux).Obj(), node: fixture.LinuxNode("l"), wantPass: true, wantAllocs: 0},
		{name: "windows pod, tainted windows node", pod: pod(img2019).Obj(), node: fixture.WindowsNode("w", "10.0.17763"), wantPass: true, wantAllocs: 0},
		{name: "windows pod, kernel-version node", pod: pod(img2022).Obj(), node: fixture.WindowsNode("w", "", fixture.WithKernel("10.0.26100.1")), wantPass: true, wantAllocs: 0},
		{name: "linux pod, windows node", pod: pod(imgLinux).Obj(), node: fixture.WindowsNode("w", "10.0.17763"), wantPass: false, wantAllocs: 1},
		{name: "windows pod, wrong build", pod: pod(img2019).Obj(), node: fixture.WindowsNode("w", "10.0.20348"), wantPass: false, wantAllocs: 1},
		{name: "windows pod, malformed label", pod: pod(img2019).Obj(), node: fixture.WindowsNode("w", "banana", fixture.WithKernel("")), wantPass: false, wantAllocs: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			allocs, passed := filter(tt.pod, tt.node)
			if passed != tt.wantPass {
				t.Fatalf("passed = %v, want %v", passed, tt.wantPass)
			}
			if allocs > tt.wantAllocs {
				t.Errorf("Filter allocates %v times, want at most %v", allocs, tt.wantAllocs)
			}
		})
	}
}
