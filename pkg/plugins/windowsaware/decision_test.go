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
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/pkg/plugins/ostainttoleration"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
)

func withNodeSelector(p *v1.Pod, kv ...string) *v1.Pod {
	p.Spec.NodeSelector = map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		p.Spec.NodeSelector[kv[i]] = kv[i+1]
	}
	return p
}

// TestDecideConflictKinds holds every conflict message to its kind, so
// that a reworded message fails here instead of counting as "other".
func TestDecideConflictKinds(t *testing.T) {
	pl, _ := newWindowsAware(defaultArgs())
	tests := []struct {
		name string
		pod  *v1.Pod
		want podneeds.ConflictKind
	}{
		{name: "no conflict", pod: pod(img2019).Obj(), want: ""},
		{name: "linux .spec.os.name, windows image", pod: withOS(pod(img2019), v1.Linux), want: podneeds.ConflictOSVsImage},
		{name: "ltsc2019 with ltsc2022", pod: pod(img2019, img2022).Obj(), want: podneeds.ConflictBuildsNoHost},
		{name: "one tag, two builds", pod: pod("mcr.microsoft.com/windows/servercore:1809-ltsc2022").Obj(), want: podneeds.ConflictTagTwoBuilds},
		{name: "windows image, linux selector", pod: withNodeSelector(pod(img2019).Obj(), v1.LabelOSStable, "linux"), want: podneeds.ConflictSelectorOS},
		{name: "ltsc2022 image, 2019 build selector", pod: withNodeSelector(pod(img2022).Obj(), v1.LabelWindowsBuild, "10.0.17763"), want: podneeds.ConflictSelectorBuild},
		{name: "ltsc2022 image under a 2019 RuntimeClass", pod: func() *v1.Pod {
			p := withNodeSelector(pod(img2022).Obj(), v1.LabelWindowsBuild, "10.0.17763")
			p.Spec.RuntimeClassName = ptr.To("windows-2019")
			return p
		}(), want: podneeds.ConflictSelectorBuild},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := pl.Decide(tt.pod)
			if got := d.ConflictKind(); got != tt.want {
				t.Errorf("podneeds.ConflictKind() = %q, want %q (conflict %q)", got, tt.want, d.Conflict())
			}
			if fits, reason := d.RunsOn(fixture.WindowsNode("w", "10.0.17763")); tt.want != "" && (fits || reason != d.Conflict()) {
				t.Errorf("FitNode = %v, %q; a conflicting pod fits no node, with its conflict as the reason", fits, reason)
			}
		})
	}
}

func TestPlatformOf(t *testing.T) {
	arm := fixture.LinuxNode("arm", fixture.WithLabel(v1.LabelArchStable, "arm64"))
	tests := []struct {
		name string
		node *v1.Node
		want podneeds.NodePlatform
	}{
		{"linux", arm, podneeds.NodePlatform{OS: "linux", Arch: "arm64"}},
		{"build label", fixture.WindowsNode("w", "10.0.20348", fixture.WithKernel("10.0.20348.2227")), podneeds.NodePlatform{OS: "windows", Arch: "amd64", Build: "10.0.20348"}},
		{"kernel version only", fixture.WindowsNode("w", "", fixture.WithKernel("10.0.17763.437")), podneeds.NodePlatform{OS: "windows", Arch: "amd64", Build: "10.0.17763"}},
		{"nothing reported", fixture.WindowsNode("w", ""), podneeds.NodePlatform{OS: "windows", Arch: "amd64"}},
		{"malformed label", fixture.WindowsNode("w", "banana", fixture.WithKernel("10.0.17763.437")), podneeds.NodePlatform{OS: "windows", Arch: "amd64", Build: "banana", MalformedBuild: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, podneeds.PlatformOf(tt.node)); diff != "" {
				t.Errorf("podneeds.PlatformOf (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTaintsRepel(t *testing.T) {
	pl, _ := newWindowsAware(defaultArgs())
	gpu := v1.Taint{Key: "gpu", Value: "true", Effect: v1.TaintEffectNoSchedule}
	tolerateGPU := func(p *v1.Pod) *v1.Pod {
		p.Spec.Tolerations = []v1.Toleration{{Key: "gpu", Operator: v1.TolerationOpExists}}
		return p
	}
	tests := []struct {
		name string
		pod  *v1.Pod
		node *v1.Node
		want bool
	}{
		{"windows pod tolerates its OS taint", pod(img2019).Obj(), fixture.WindowsNode("w", "10.0.17763"), false},
		{"linux pod does not", pod(imgLinux).Obj(), fixture.WindowsNode("w", "10.0.17763"), true},
		{"other taints apply", pod(img2019).Obj(), fixture.WindowsNode("w", "10.0.17763", fixture.WithTaints(fixture.WindowsTaint, gpu)), true},
		{"unless tolerated", tolerateGPU(pod(img2019).Obj()), fixture.WindowsNode("w", "10.0.17763", fixture.WithTaints(fixture.WindowsTaint, gpu)), false},
		{"untainted node", pod(imgLinux).Obj(), fixture.LinuxNode("l"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := pl.Decide(tt.pod)
			repels, reason := d.TaintsRepel(tt.pod, tt.node, false)
			if repels != tt.want {
				t.Fatalf("TaintsRepel = %v, want %v", repels, tt.want)
			}
			if repels && reason != ostainttoleration.ErrReasonUntoleratedTaint {
				t.Errorf("reason %q, want %q", reason, ostainttoleration.ErrReasonUntoleratedTaint)
			}
		})
	}
}
