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
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
	"k8s.io/utils/ptr"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/plugins/ostainttoleration"
)

var linuxNodes = []string{"linux", "linux-beta"}

func TestFilter(t *testing.T) {
	tests := []struct {
		name string
		pod  *v1.Pod
		args *config.WindowsAwareArgs
		// want lists the feasible nodes.
		want []string
	}{
		{name: "linux image goes to linux", pod: pod(imgLinux).Obj(), want: linuxNodes},
		{name: "spec.os.name linux", pod: withOS(pod(imgLinux), v1.Linux), want: linuxNodes},
		{name: "spec.os.name linux wins over a tag that names no build", pod: withOS(pod(imgNano, "ghcr.io/acme/cross:1.0-windows"), v1.Linux), want: linuxNodes},
		{name: "ltsc2019 runs on 2019 nodes, by label or kernel version", pod: pod(img2019).Obj(), want: []string{"win2019", "win2019-kernel-only"}},
		{name: "1809 with nanoserver context", pod: pod(img1809).Obj(), want: []string{"win2019", "win2019-kernel-only"}},
		{name: "iis windowsservercore-ltsc2019", pod: pod(imgIIS2019).Obj(), want: []string{"win2019", "win2019-kernel-only"}},
		{name: "ltsc2016", pod: pod(img2016).Obj(), want: []string{"win2016"}},
		{name: "ltsc2022 runs on 2022 and 2025", pod: pod(img2022).Obj(), want: []string{"win2022", "win2025"}},
		{name: "ltsc2025 runs only on 2025", pod: pod(img2025).Obj(), want: []string{"win2025"}},
		{name: "ltsc2022 in exact mode", pod: pod(img2022).Obj(), args: defaultArgs(func(a *config.WindowsAwareArgs) { a.CompatibilityMode = "exact" }), want: []string{"win2022"}},
		{name: "2022 and 2025 images together need a 2025 host", pod: pod(img2022, img2025).Obj(), want: []string{"win2025"}},
		{name: "init container image counts", pod: withInit(pod(imgWinNoTag), img2019), want: []string{"win2019", "win2019-kernel-only"}},
		{name: "windows without a build runs on any windows node", pod: pod(imgWinNoTag, imgNano).Obj(),
			want: []string{"win2016", "win2019", "win2022", "win2025", "win2019-kernel-only", "win-banana", "win-unknown"}},
		{name: "spec.os.name windows with a linux-looking image", pod: withOS(pod("acme/tool:1.0"), v1.Windows),
			want: []string{"win2016", "win2019", "win2022", "win2025", "win2019-kernel-only", "win-banana", "win-unknown"}},
		{name: "hostprocess needs windows, no build", pod: hostProcess(pod(img2019)),
			want: []string{"win2016", "win2019", "win2022", "win2025", "win2019-kernel-only", "win-banana", "win-unknown"}},
		{name: "defaultOS any keeps the stock behaviour, taints still apply", pod: pod(imgLinux).Obj(),
			args: defaultArgs(func(a *config.WindowsAwareArgs) { a.DefaultOS = config.OSAny }), want: linuxNodes},
		{name: "defaultOS any tolerating the taint reaches windows nodes", pod: pod(imgLinux).Tolerations([]v1.Toleration{{Key: "os", Operator: v1.TolerationOpExists}}).Obj(),
			args: defaultArgs(func(a *config.WindowsAwareArgs) { a.DefaultOS = config.OSAny }),
			want: []string{"linux", "linux-beta", "win2016", "win2019", "win2022", "win2025", "win2019-kernel-only", "win-banana", "win-unknown"}},
		{name: "a selector for windows makes a tagless pod a windows pod", pod: pod(imgWinNoTag).NodeSelector(map[string]string{v1.LabelOSStable: "windows"}).Obj(),
			want: []string{"win2016", "win2019", "win2022", "win2025", "win2019-kernel-only", "win-banana", "win-unknown"}},
		{name: "OS taints not tolerated when switched off", pod: pod(img2019).Obj(),
			args: defaultArgs(func(a *config.WindowsAwareArgs) { a.OSTaints.Tolerate = false }), want: nil},
		{name: "OS taints switched off, pod tolerates them itself", pod: pod(img2019).Tolerations([]v1.Toleration{{Key: "os", Operator: v1.TolerationOpEqual, Value: "windows", Effect: v1.TaintEffectNoSchedule}}).Obj(),
			args: defaultArgs(func(a *config.WindowsAwareArgs) { a.OSTaints.Tolerate = false }), want: []string{"win2019", "win2019-kernel-only"}},
		{name: "extra release token", pod: pod("ghcr.io/acme/app:ltsc2028").Obj(),
			args: defaultArgs(func(a *config.WindowsAwareArgs) {
				a.ExtraReleases = []config.ReleaseToken{{Token: "ltsc2028", Build: "10.0.26100"}}
			}), want: []string{"win2025"}},
	}
	nodes := testNodes()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if args == nil {
				args = defaultArgs()
			}
			status, verdicts := feasible(t, newFramework(t, args, nodes), tt.pod, nodes)
			if !status.IsSuccess() {
				t.Fatalf("PreFilter: %v", status)
			}
			var got []string
			for _, n := range nodes {
				if verdicts[n.Name] == nil {
					got = append(got, n.Name)
				}
			}
			want := slices.Clone(tt.want)
			slices.Sort(got)
			slices.Sort(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("feasible nodes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFilterReasons(t *testing.T) {
	nodes := testNodes()
	f := newFramework(t, defaultArgs(), nodes)
	_, verdicts := feasible(t, f, pod(img2022).Obj(), nodes)
	want := map[string][]string{
		"linux":               {ErrReasonOS},
		"linux-beta":          {ErrReasonOS},
		"win2016":             {ErrReasonBuild},
		"win2019":             {ErrReasonBuild},
		"win2022":             nil,
		"win2025":             nil,
		"win2019-kernel-only": {ErrReasonBuild},
		"win-banana":          {ErrReasonMalformedBuild},
		"win-unknown":         {ErrReasonNoBuild},
	}
	if diff := cmp.Diff(want, verdicts); diff != "" {
		t.Errorf("reasons (-want +got):\n%s", diff)
	}
	for _, reasons := range verdicts {
		for _, r := range reasons {
			if !strings.HasPrefix(r, "node(s) ") {
				t.Errorf("reason %q does not follow upstream's node(s) convention", r)
			}
		}
	}

	// An unrelated taint still repels a windows pod, with upstream's reason.
	gpu := fixture.WindowsNode("win2022-gpu", "10.0.20348", fixture.WithTaints(fixture.WindowsTaint, v1.Taint{Key: "gpu", Value: "true", Effect: v1.TaintEffectNoSchedule}))
	_, verdicts = feasible(t, newFramework(t, defaultArgs(), []*v1.Node{gpu}), pod(img2022).Obj(), []*v1.Node{gpu})
	if diff := cmp.Diff(map[string][]string{"win2022-gpu": {ostainttoleration.ErrReasonUntoleratedTaint}}, verdicts); diff != "" {
		t.Errorf("unrelated taint (-want +got):\n%s", diff)
	}
}

func TestOSTaints(t *testing.T) {
	taint := func(key, value string, effect v1.TaintEffect) v1.Taint {
		return v1.Taint{Key: key, Value: value, Effect: effect}
	}
	tests := []struct {
		name  string
		taint v1.Taint
		pod   *v1.Pod
		fits  bool
	}{
		{name: "os=windows:NoSchedule", taint: taint("os", "windows", v1.TaintEffectNoSchedule), pod: pod(img2019).Obj(), fits: true},
		{name: "os=Windows (OpenShift) any case", taint: taint("os", "Windows", v1.TaintEffectNoSchedule), pod: pod(img2019).Obj(), fits: true},
		{name: "node.kubernetes.io/os=windows", taint: taint("node.kubernetes.io/os", "windows", v1.TaintEffectNoSchedule), pod: pod(img2019).Obj(), fits: true},
		{name: "NoExecute is not in the default effects", taint: taint("os", "windows", v1.TaintEffectNoExecute), pod: pod(img2019).Obj(), fits: false},
		{name: "sku=Windows is not a default key", taint: taint("sku", "Windows", v1.TaintEffectNoSchedule), pod: pod(img2019).Obj(), fits: false},
		{name: "os=linux on a windows node is no OS taint", taint: taint("os", "linux", v1.TaintEffectNoSchedule), pod: pod(img2019).Obj(), fits: false},
		{name: "PreferNoSchedule never filters", taint: taint("gpu", "x", v1.TaintEffectPreferNoSchedule), pod: pod(img2019).Obj(), fits: true},
		{name: "pod's own toleration", taint: taint("gpu", "x", v1.TaintEffectNoSchedule), pod: pod(img2019).Tolerations([]v1.Toleration{{Key: "gpu", Operator: v1.TolerationOpExists}}).Obj(), fits: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := fixture.WindowsNode("w", "10.0.17763", fixture.WithTaints(tt.taint))
			_, verdicts := feasible(t, newFramework(t, defaultArgs(), []*v1.Node{n}), tt.pod, []*v1.Node{n})
			if got := verdicts["w"] == nil; got != tt.fits {
				t.Errorf("fits = %v (%v), want %v", got, verdicts["w"], tt.fits)
			}
		})
	}

	// A configured key. (NoExecute cannot be configured: the kubelet would
	// evict what the scheduler tolerated.)
	args := defaultArgs(func(a *config.WindowsAwareArgs) {
		a.OSTaints.Keys = append(a.OSTaints.Keys, "sku")
	})
	n := fixture.WindowsNode("w", "10.0.17763", fixture.WithTaints(taint("sku", "Windows", v1.TaintEffectNoSchedule)))
	if _, v := feasible(t, newFramework(t, args, []*v1.Node{n}), pod(img2019).Obj(), []*v1.Node{n}); v["w"] != nil {
		t.Errorf("sku=Windows:NoSchedule with sku configured: %v", v["w"])
	}
	n = fixture.WindowsNode("w", "10.0.17763", fixture.WithTaints(taint("sku", "Windows", v1.TaintEffectNoExecute)))
	if _, v := feasible(t, newFramework(t, args, []*v1.Node{n}), pod(img2019).Obj(), []*v1.Node{n}); v["w"] == nil {
		t.Error("sku=Windows:NoExecute tolerated on the pod's behalf")
	}
}

func TestPreFilterConflicts(t *testing.T) {
	tests := []struct {
		name string
		pod  *v1.Pod
		// wantIn are substrings of the message; nil wants success.
		wantIn []string
	}{
		{name: "linux pod with a windows image", pod: withOS(pod(imgLinux, img2019), v1.Linux), wantIn: []string{".spec.os.name linux", img2019, "10.0.17763"}},
		{name: "images no single host runs", pod: pod(img2019, img2022).Obj(), wantIn: []string{img2019, "10.0.17763", img2022, "10.0.20348", "containerd"}},
		{name: "init container against container", pod: withInit(pod(img2022), img2016), wantIn: []string{img2016, "10.0.14393", img2022}},
		{name: "one tag naming two builds", pod: pod("mcr.microsoft.com/windows/servercore:1809-ltsc2022").Obj(), wantIn: []string{"1809-ltsc2022", "10.0.17763", "10.0.20348"}},
		{name: "nodeSelector build contradicts the tag", pod: pod(img2022).NodeSelector(map[string]string{v1.LabelWindowsBuild: "10.0.17763"}).Obj(), wantIn: []string{v1.LabelWindowsBuild, "10.0.17763", img2022, "10.0.20348"}},
		{name: "runtimeclass-merged selector is named", pod: func() *v1.Pod {
			p := pod(img2022).NodeSelector(map[string]string{v1.LabelOSStable: "windows", v1.LabelWindowsBuild: "10.0.17763"}).Obj()
			p.Spec.RuntimeClassName = ptr.To("windows-2019")
			return p
		}(), wantIn: []string{`RuntimeClass "windows-2019"`, img2022}},
		{name: "node affinity build contradicts the tag", pod: pod(img2025).NodeAffinityIn(v1.LabelWindowsBuild, []string{"10.0.17763", "10.0.20348"}, st.NodeSelectorTypeMatchExpressions).Obj(), wantIn: []string{v1.LabelWindowsBuild, img2025, "10.0.26100"}},
		{name: "nodeSelector os contradicts a windows image", pod: pod(img2019).NodeSelector(map[string]string{v1.LabelOSStable: "linux"}).Obj(), wantIn: []string{"windows node", v1.LabelOSStable}},
		{name: "garbage build selector", pod: pod(img2019).NodeSelector(map[string]string{v1.LabelWindowsBuild: "banana"}).Obj(), wantIn: []string{"banana", img2019}},

		{name: "selector that agrees", pod: pod(img2019).NodeSelector(map[string]string{v1.LabelWindowsBuild: "10.0.17763"}).Obj(), wantIn: nil},
		{name: "a 2025 selector runs ltsc2022", pod: pod(img2022).NodeSelector(map[string]string{v1.LabelWindowsBuild: "10.0.26100"}).Obj(), wantIn: nil},
		{name: "affinity with one term free of the key", pod: func() *v1.Pod {
			p := pod(img2025).NodeAffinityIn(v1.LabelWindowsBuild, []string{"10.0.17763"}, st.NodeSelectorTypeMatchExpressions).Obj()
			terms := &p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
			*terms = append(*terms, v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "zone", Operator: v1.NodeSelectorOpExists}}})
			return p
		}(), wantIn: nil},
		{name: "unparsable image is the kubelet's to report", pod: pod("Not A Reference").Obj(), wantIn: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nodes := testNodes()
			status, _ := feasible(t, newFramework(t, defaultArgs(), nodes), tt.pod, nodes)
			if tt.wantIn == nil {
				if !status.IsSuccess() {
					t.Fatalf("PreFilter = %v, want success", status)
				}
				return
			}
			if status.Code() != fwk.UnschedulableAndUnresolvable {
				t.Fatalf("PreFilter code = %v (%v), want UnschedulableAndUnresolvable", status.Code(), status)
			}
			for _, s := range tt.wantIn {
				if !strings.Contains(status.Message(), s) {
					t.Errorf("message %q does not name %q", status.Message(), s)
				}
			}
		})
	}
}

func TestPreFilterSkip(t *testing.T) {
	pl, err := newWindowsAware(defaultArgs(func(a *config.WindowsAwareArgs) { a.DefaultOS = config.OSAny }))
	if err != nil {
		t.Fatal(err)
	}
	if _, s := pl.PreFilter(t.Context(), newState(), pod(imgLinux).Obj(), nil); s.Code() != fwk.Skip {
		t.Errorf("defaultOS any, linux image: PreFilter = %v, want Skip", s)
	}
	if _, s := pl.PreFilter(t.Context(), newState(), pod(img2019).Obj(), nil); !s.IsSuccess() {
		t.Errorf("defaultOS any, windows image: PreFilter = %v, want Success", s)
	}
}
