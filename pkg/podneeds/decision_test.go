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

package podneeds_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
)

var linuxNodes = []string{"linux", "linux-beta"}

// runsOn lists the nodes a pod of decision d may land on as the scheduler
// judges them: the nodes it runs on whose taints, its implicit OS
// toleration added, do not repel it.
func runsOn(d *podneeds.Decision, p *v1.Pod, nodes []*v1.Node) []string {
	var out []string
	for _, n := range nodes {
		ok, _ := d.RunsOn(n)
		if repels, _ := d.TaintsRepel(p, n, false); ok && !repels {
			out = append(out, n.Name)
		}
	}
	return out
}

// TestRunsOn: which nodes each pod runs on, by its images, its OS and the
// profile's settings, and which of them its taints leave it.
func TestRunsOn(t *testing.T) {
	windowsNodes := []string{"win2016", "win2019", "win2022", "win2025", "win2019-kernel-only", "win-banana", "win-unknown"}
	tests := []struct {
		name string
		pod  *v1.Pod
		args func(*config.WindowsAwareArgs)
		// want lists the nodes the pod may land on.
		want []string
	}{
		{name: "linux image goes to linux", pod: pod(imgLinux), want: linuxNodes},
		{name: "spec.os.name linux", pod: withOS(pod(imgLinux), v1.Linux), want: linuxNodes},
		{name: "spec.os.name linux wins over a tag that names no build", pod: withOS(pod(imgNano, "ghcr.io/acme/cross:1.0-windows"), v1.Linux), want: linuxNodes},
		{name: "ltsc2019 runs on 2019 nodes, by label or kernel version", pod: pod(img2019), want: []string{"win2019", "win2019-kernel-only"}},
		{name: "1809 with nanoserver context", pod: pod(img1809), want: []string{"win2019", "win2019-kernel-only"}},
		{name: "iis windowsservercore-ltsc2019", pod: pod(imgIIS2019), want: []string{"win2019", "win2019-kernel-only"}},
		{name: "ltsc2016", pod: pod(img2016), want: []string{"win2016"}},
		{name: "ltsc2022 runs on 2022 and 2025", pod: pod(img2022), want: []string{"win2022", "win2025"}},
		{name: "ltsc2025 runs only on 2025", pod: pod(img2025), want: []string{"win2025"}},
		{name: "ltsc2022 in exact mode", pod: pod(img2022), args: func(a *config.WindowsAwareArgs) { a.CompatibilityMode = "exact" }, want: []string{"win2022"}},
		{name: "2022 and 2025 images together need a 2025 host", pod: pod(img2022, img2025), want: []string{"win2025"}},
		{name: "init container image counts", pod: withInit(pod(imgWinNoTag), img2019), want: []string{"win2019", "win2019-kernel-only"}},
		{name: "windows without a build runs on any windows node", pod: pod(imgWinNoTag, imgNano), want: windowsNodes},
		{name: "spec.os.name windows with a linux-looking image", pod: withOS(pod("acme/tool:1.0"), v1.Windows), want: windowsNodes},
		{name: "hostprocess needs windows, no build", pod: fixture.HostProcess(pod(img2019)), want: windowsNodes},
		{name: "defaultOS any keeps the stock behaviour, taints still apply", pod: pod(imgLinux),
			args: func(a *config.WindowsAwareArgs) { a.DefaultOS = config.OSAny }, want: linuxNodes},
		{name: "defaultOS any tolerating the taint reaches windows nodes", pod: withTolerations(pod(imgLinux), v1.Toleration{Key: "os", Operator: v1.TolerationOpExists}),
			args: func(a *config.WindowsAwareArgs) { a.DefaultOS = config.OSAny }, want: append(slices.Clone(linuxNodes), windowsNodes...)},
		{name: "a DaemonSet's pod that says nothing takes no default OS: its tolerations decide, as stock", pod: daemonSetPod(withTolerations(pod(imgLinux), v1.Toleration{Key: "os", Operator: v1.TolerationOpExists})),
			want: append(slices.Clone(linuxNodes), windowsNodes...)},
		{name: "a DaemonSet's pod that tolerates nothing stays off tainted windows nodes", pod: daemonSetPod(pod(imgLinux)), want: linuxNodes},
		{name: "a DaemonSet's pod keeps its image's build", pod: daemonSetPod(pod(img2019)), want: []string{"win2019", "win2019-kernel-only"}},
		{name: "a DaemonSet's pod keeps its selector", pod: daemonSetPod(withNodeSelector(withTolerations(pod(imgLinux), v1.Toleration{Key: "os", Operator: v1.TolerationOpExists}), v1.LabelOSStable, "linux")), want: linuxNodes},
		{name: "a selector for windows makes a tagless pod a windows pod", pod: withNodeSelector(pod(imgWinNoTag), v1.LabelOSStable, "windows"), want: windowsNodes},
		{name: "OS taints not tolerated when switched off", pod: pod(img2019),
			args: func(a *config.WindowsAwareArgs) { a.OSTaints.Tolerate = false }, want: nil},
		{name: "OS taints switched off, pod tolerates them itself", pod: withTolerations(pod(img2019), fixture.WindowsToleration),
			args: func(a *config.WindowsAwareArgs) { a.OSTaints.Tolerate = false }, want: []string{"win2019", "win2019-kernel-only"}},
		{name: "extra release token", pod: pod("ghcr.io/acme/app:ltsc2028"),
			args: func(a *config.WindowsAwareArgs) {
				a.ExtraReleases = []config.ReleaseToken{{Token: "ltsc2028", Build: "10.0.26100"}}
			}, want: []string{"win2025"}},
	}
	nodes := testNodes()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mutate []func(*config.WindowsAwareArgs)
			if tt.args != nil {
				mutate = append(mutate, tt.args)
			}
			d := decider(t, mutate...).Decide(tt.pod, nil)
			if d.Conflict() != "" {
				t.Fatalf("conflict: %s", d.Conflict())
			}
			got, want := runsOn(d, tt.pod, nodes), slices.Clone(tt.want)
			slices.Sort(got)
			slices.Sort(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("nodes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestVerdicts: the verdict on each kind of node that does not run a pod,
// which the scheduler's reasons name.
func TestVerdicts(t *testing.T) {
	d := decider(t).Decide(pod(img2022), nil)
	want := map[string]string{
		"linux":               podneeds.ReasonOS,
		"linux-beta":          podneeds.ReasonOS,
		"win2016":             podneeds.ReasonBuild,
		"win2019":             podneeds.ReasonBuild,
		"win2022":             "",
		"win2025":             "",
		"win2019-kernel-only": podneeds.ReasonBuild,
		"win-banana":          podneeds.ReasonMalformedBuild,
		"win-unknown":         podneeds.ReasonNoBuild,
	}
	got := map[string]string{}
	for _, n := range testNodes() {
		ok, reason := d.RunsOn(n)
		if ok != (reason == "") {
			t.Errorf("node %s: RunsOn = %v, %q", n.Name, ok, reason)
		}
		if f := d.VerdictOnNode(n); podneeds.Reason(f) != reason {
			t.Errorf("node %s: verdict %v, whose reason is %q; RunsOn gives %q", n.Name, f, podneeds.Reason(f), reason)
		}
		got[n.Name] = reason
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reasons (-want +got):\n%s", diff)
	}
}

// TestConflicts: a pod that contradicts itself is told what contradicts
// what, naming the images and builds.
func TestConflicts(t *testing.T) {
	tests := []struct {
		name string
		pod  *v1.Pod
		// wantIn are substrings of the message; nil wants no conflict.
		wantIn []string
	}{
		{name: "linux pod with a windows image", pod: withOS(pod(imgLinux, img2019), v1.Linux), wantIn: []string{".spec.os.name linux", img2019, "10.0.17763"}},
		{name: "images no single host runs", pod: pod(img2019, img2022), wantIn: []string{img2019, "10.0.17763", img2022, "10.0.20348", "containerd"}},
		{name: "init container against container", pod: withInit(pod(img2022), img2016), wantIn: []string{img2016, "10.0.14393", img2022}},
		{name: "one tag naming two builds", pod: pod("mcr.microsoft.com/windows/servercore:1809-ltsc2022"), wantIn: []string{"1809-ltsc2022", "10.0.17763", "10.0.20348"}},
		{name: "nodeSelector build contradicts the tag", pod: withNodeSelector(pod(img2022), v1.LabelWindowsBuild, "10.0.17763"), wantIn: []string{v1.LabelWindowsBuild, "10.0.17763", img2022, "10.0.20348"}},
		{name: "runtimeclass-merged selector is named", pod: func() *v1.Pod {
			p := withNodeSelector(pod(img2022), v1.LabelOSStable, "windows", v1.LabelWindowsBuild, "10.0.17763")
			p.Spec.RuntimeClassName = ptr.To("windows-2019")
			return p
		}(), wantIn: []string{`RuntimeClass "windows-2019"`, img2022}},
		{name: "node affinity build contradicts the tag", pod: withRequiredAffinity(pod(img2025), v1.LabelWindowsBuild, "10.0.17763", "10.0.20348"), wantIn: []string{v1.LabelWindowsBuild, img2025, "10.0.26100"}},
		{name: "nodeSelector os contradicts a windows image", pod: withNodeSelector(pod(img2019), v1.LabelOSStable, "linux"), wantIn: []string{"windows node", v1.LabelOSStable, img2019, "10.0.17763"}},
		{name: "garbage build selector", pod: withNodeSelector(pod(img2019), v1.LabelWindowsBuild, "banana"), wantIn: []string{"banana", img2019}},

		{name: "selector that agrees", pod: withNodeSelector(pod(img2019), v1.LabelWindowsBuild, "10.0.17763"), wantIn: nil},
		{name: "a 2025 selector runs ltsc2022", pod: withNodeSelector(pod(img2022), v1.LabelWindowsBuild, "10.0.26100"), wantIn: nil},
		{name: "affinity with one term free of the key", pod: func() *v1.Pod {
			p := withRequiredAffinity(pod(img2025), v1.LabelWindowsBuild, "10.0.17763")
			terms := &p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
			*terms = append(*terms, v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "zone", Operator: v1.NodeSelectorOpExists}}})
			return p
		}(), wantIn: nil},
		{name: "unparsable image is the kubelet's to report", pod: pod("Not A Reference"), wantIn: nil},
	}
	dr := decider(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := dr.Decide(tt.pod, nil)
			if tt.wantIn == nil {
				if d.Conflict() != "" {
					t.Fatalf("conflict %q, want none", d.Conflict())
				}
				return
			}
			if d.Conflict() == "" {
				t.Fatal("no conflict")
			}
			for _, s := range tt.wantIn {
				if !strings.Contains(d.Conflict(), s) {
					t.Errorf("conflict %q does not name %q", d.Conflict(), s)
				}
			}
		})
	}
}

// TestDecideConflictKinds holds every conflict message to its kind, so
// that a reworded message fails here instead of counting as "other".
func TestDecideConflictKinds(t *testing.T) {
	dr := decider(t)
	tests := []struct {
		name string
		pod  *v1.Pod
		want podneeds.ConflictKind
	}{
		{name: "no conflict", pod: pod(img2019), want: ""},
		{name: "linux .spec.os.name, windows image", pod: withOS(pod(img2019), v1.Linux), want: podneeds.ConflictOSVsImage},
		{name: "ltsc2019 with ltsc2022", pod: pod(img2019, img2022), want: podneeds.ConflictBuildsNoHost},
		{name: "one tag, two builds", pod: pod("mcr.microsoft.com/windows/servercore:1809-ltsc2022"), want: podneeds.ConflictTagTwoBuilds},
		{name: "windows image, linux selector", pod: withNodeSelector(pod(img2019), v1.LabelOSStable, "linux"), want: podneeds.ConflictSelectorOS},
		{name: "ltsc2022 image, 2019 build selector", pod: withNodeSelector(pod(img2022), v1.LabelWindowsBuild, "10.0.17763"), want: podneeds.ConflictSelectorBuild},
		{name: "ltsc2022 image under a 2019 RuntimeClass", pod: func() *v1.Pod {
			p := withNodeSelector(pod(img2022), v1.LabelWindowsBuild, "10.0.17763")
			p.Spec.RuntimeClassName = ptr.To("windows-2019")
			return p
		}(), want: podneeds.ConflictSelectorBuild},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := dr.Decide(tt.pod, nil)
			if got := d.ConflictKind(); got != tt.want {
				t.Errorf("ConflictKind() = %q, want %q (conflict %q)", got, tt.want, d.Conflict())
			}
			if ok, reason := d.RunsOn(fixture.WindowsNode("w", "10.0.17763")); tt.want != "" && (ok || reason != d.Conflict()) {
				t.Errorf("RunsOn = %v, %q; a conflicting pod runs on no node, with its conflict as the reason", ok, reason)
			}
		})
	}
}

func TestPlatformOf(t *testing.T) {
	tests := []struct {
		name string
		node *v1.Node
		want podneeds.NodePlatform
	}{
		{"linux", fixture.LinuxNode("arm", fixture.WithLabel(v1.LabelArchStable, "arm64")), podneeds.NodePlatform{OS: "linux", Arch: "arm64"}},
		{"build label", fixture.WindowsNode("w", "10.0.20348", fixture.WithKernel("10.0.20348.2227")), podneeds.NodePlatform{OS: "windows", Arch: "amd64", Build: "10.0.20348"}},
		{"kernel version only", fixture.WindowsNode("w", "", fixture.WithKernel("10.0.17763.437")), podneeds.NodePlatform{OS: "windows", Arch: "amd64", Build: "10.0.17763"}},
		{"nothing reported", fixture.WindowsNode("w", ""), podneeds.NodePlatform{OS: "windows", Arch: "amd64"}},
		{"malformed label", fixture.WindowsNode("w", "banana", fixture.WithKernel("10.0.17763.437")), podneeds.NodePlatform{OS: "windows", Arch: "amd64", Build: "banana", MalformedBuild: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, podneeds.PlatformOf(tt.node)); diff != "" {
				t.Errorf("PlatformOf (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNodePlatformCompare: the reports list platforms Linux first, then
// Windows builds oldest first by number, a malformed build label last,
// and each by architecture.
func TestNodePlatformCompare(t *testing.T) {
	sorted := []podneeds.NodePlatform{
		{OS: "linux", Arch: "amd64"},
		{OS: "linux", Arch: "arm64"},
		{OS: "windows", Arch: "amd64"},
		{OS: "windows", Arch: "amd64", Build: "10.0.17763"},
		{OS: "windows", Arch: "amd64", Build: "10.0.20348"},
		{OS: "windows", Arch: "arm64", Build: "10.0.20348"},
		{OS: "windows", Arch: "amd64", Build: "10.0.100000"},
		{OS: "windows", Arch: "amd64", Build: "banana", MalformedBuild: true},
	}
	got := slices.Clone(sorted)
	slices.Reverse(got)
	slices.SortFunc(got, podneeds.NodePlatform.Compare)
	if diff := cmp.Diff(sorted, got); diff != "" {
		t.Errorf("sorted by Compare (-want +got):\n%s", diff)
	}
	if c := podneeds.CompareBuilds("10.0.9999", "10.0.17763"); c >= 0 {
		t.Errorf("CompareBuilds(10.0.9999, 10.0.17763) = %d, want the older first", c)
	}
}

func TestTaintsRepel(t *testing.T) {
	dr := decider(t)
	gpu := v1.Taint{Key: "gpu", Value: "true", Effect: v1.TaintEffectNoSchedule}
	tolerateGPU := func(p *v1.Pod) *v1.Pod {
		return withTolerations(p, v1.Toleration{Key: "gpu", Operator: v1.TolerationOpExists})
	}
	tests := []struct {
		name string
		pod  *v1.Pod
		node *v1.Node
		want bool
	}{
		{"windows pod tolerates its OS taint", pod(img2019), fixture.WindowsNode("w", "10.0.17763"), false},
		{"linux pod does not", pod(imgLinux), fixture.WindowsNode("w", "10.0.17763"), true},
		{"other taints apply", pod(img2019), fixture.WindowsNode("w", "10.0.17763", fixture.WithTaints(fixture.WindowsTaint, gpu)), true},
		{"unless tolerated", tolerateGPU(pod(img2019)), fixture.WindowsNode("w", "10.0.17763", fixture.WithTaints(fixture.WindowsTaint, gpu)), false},
		{"untainted node", pod(imgLinux), fixture.LinuxNode("l"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := dr.Decide(tt.pod, nil)
			repels, reason := d.TaintsRepel(tt.pod, tt.node, false)
			if repels != tt.want {
				t.Fatalf("TaintsRepel = %v, want %v", repels, tt.want)
			}
			if repels && reason != podneeds.ReasonUntoleratedTaint {
				t.Errorf("reason %q, want %q", reason, podneeds.ReasonUntoleratedTaint)
			}
		})
	}
}

// TestOSTaints: which taints of a node of its OS a pod tolerates without
// saying so, under the default osTaints and with a key configured.
func TestOSTaints(t *testing.T) {
	taint := func(key, value string, effect v1.TaintEffect) v1.Taint {
		return v1.Taint{Key: key, Value: value, Effect: effect}
	}
	tests := []struct {
		name  string
		taint v1.Taint
		pod   *v1.Pod
		runs  bool
	}{
		{name: "os=windows:NoSchedule", taint: taint("os", "windows", v1.TaintEffectNoSchedule), pod: pod(img2019), runs: true},
		{name: "os=Windows (OpenShift) any case", taint: taint("os", "Windows", v1.TaintEffectNoSchedule), pod: pod(img2019), runs: true},
		{name: "node.kubernetes.io/os=windows", taint: taint("node.kubernetes.io/os", "windows", v1.TaintEffectNoSchedule), pod: pod(img2019), runs: true},
		{name: "NoExecute is not in the default effects", taint: taint("os", "windows", v1.TaintEffectNoExecute), pod: pod(img2019), runs: false},
		{name: "sku=Windows is not a default key", taint: taint("sku", "Windows", v1.TaintEffectNoSchedule), pod: pod(img2019), runs: false},
		{name: "os=linux on a windows node is no OS taint", taint: taint("os", "linux", v1.TaintEffectNoSchedule), pod: pod(img2019), runs: false},
		{name: "PreferNoSchedule never filters", taint: taint("gpu", "x", v1.TaintEffectPreferNoSchedule), pod: pod(img2019), runs: true},
		{name: "pod's own toleration", taint: taint("gpu", "x", v1.TaintEffectNoSchedule), pod: withTolerations(pod(img2019), v1.Toleration{Key: "gpu", Operator: v1.TolerationOpExists}), runs: true},
	}
	dr := decider(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := fixture.WindowsNode("w", "10.0.17763", fixture.WithTaints(tt.taint))
			if got := runsOn(dr.Decide(tt.pod, nil), tt.pod, []*v1.Node{n}) != nil; got != tt.runs {
				t.Errorf("runs = %v, want %v", got, tt.runs)
			}
		})
	}

	// A configured key. (NoExecute cannot be configured: the kubelet would
	// evict what the scheduler tolerated.)
	dr = decider(t, func(a *config.WindowsAwareArgs) {
		a.OSTaints.Keys = append(a.OSTaints.Keys, "sku")
	})
	p := pod(img2019)
	d := dr.Decide(p, nil)
	n := fixture.WindowsNode("w", "10.0.17763", fixture.WithTaints(taint("sku", "Windows", v1.TaintEffectNoSchedule)))
	if runsOn(d, p, []*v1.Node{n}) == nil {
		t.Error("sku=Windows:NoSchedule with sku configured: repelled")
	}
	n = fixture.WindowsNode("w", "10.0.17763", fixture.WithTaints(taint("sku", "Windows", v1.TaintEffectNoExecute)))
	if runsOn(d, p, []*v1.Node{n}) != nil {
		t.Error("sku=Windows:NoExecute tolerated on the pod's behalf")
	}
}

// daemonSetPod makes p a DaemonSet's pod.
func daemonSetPod(p *v1.Pod) *v1.Pod {
	p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "agent", UID: "ds", Controller: ptr.To(true)}}
	return p
}
