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
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/pkg/apis/config"
)

var linuxNodes = []string{"linux", "linux-beta"}

// TestFilterFollowsDecision runs PreFilter, then both plugins' Filter, on
// mixed nodes, some of them tainted, for pods and profiles of every kind,
// and holds each node's result to what the decider says of it: WindowsAware
// rejects a node the decision does not run on, with the decision's reason,
// and OSTaintToleration, which reads the decision from the cycle state, a
// node whose taints repel the pod. Which nodes those are is package
// podneeds' to test.
func TestFilterFollowsDecision(t *testing.T) {
	taint := func(key, value string, effect v1.TaintEffect) v1.Taint {
		return v1.Taint{Key: key, Value: value, Effect: effect}
	}
	nodes := testNodes()
	for i, tt := range []v1.Taint{
		taint("os", "Windows", v1.TaintEffectNoSchedule),
		taint("node.kubernetes.io/os", "windows", v1.TaintEffectNoSchedule),
		taint("os", "windows", v1.TaintEffectNoExecute),
		taint("sku", "Windows", v1.TaintEffectNoSchedule),
		taint("sku", "Windows", v1.TaintEffectNoExecute),
		taint("os", "linux", v1.TaintEffectNoSchedule),
		taint("gpu", "x", v1.TaintEffectPreferNoSchedule),
		taint("gpu", "x", v1.TaintEffectNoSchedule),
	} {
		nodes = append(nodes, fixture.WindowsNode(fmt.Sprintf("win2019-tainted-%d", i), "10.0.17763", fixture.WithTaints(tt)))
	}
	tests := []struct {
		name string
		pod  *v1.Pod
		args *config.WindowsAwareArgs
	}{
		{name: "linux image", pod: pod(imgLinux).Obj()},
		{name: "spec.os.name linux", pod: withOS(pod(imgLinux), v1.Linux)},
		{name: "spec.os.name linux with a tag that names no build", pod: withOS(pod(imgNano, "ghcr.io/acme/cross:1.0-windows"), v1.Linux)},
		{name: "ltsc2019", pod: pod(img2019).Obj()},
		{name: "ltsc2022", pod: pod(img2022).Obj()},
		{name: "ltsc2022 in exact mode", pod: pod(img2022).Obj(), args: defaultArgs(func(a *config.WindowsAwareArgs) { a.CompatibilityMode = "exact" })},
		{name: "2022 and 2025 images", pod: pod(img2022, img2025).Obj()},
		{name: "init container image", pod: withInit(pod(imgWinNoTag), img2019)},
		{name: "windows without a build", pod: pod(imgWinNoTag, imgNano).Obj()},
		{name: "hostprocess", pod: hostProcess(pod(img2019))},
		{name: "pod's own toleration", pod: pod(img2019).Tolerations([]v1.Toleration{{Key: "gpu", Operator: v1.TolerationOpExists}}).Obj()},
		{name: "defaultOS any", pod: pod(imgLinux).Obj(), args: defaultArgs(func(a *config.WindowsAwareArgs) { a.DefaultOS = config.OSAny })},
		{name: "defaultOS any, tolerating the taint", pod: pod(imgLinux).Tolerations([]v1.Toleration{{Key: "os", Operator: v1.TolerationOpExists}}).Obj(),
			args: defaultArgs(func(a *config.WindowsAwareArgs) { a.DefaultOS = config.OSAny })},
		{name: "a selector for windows", pod: pod(imgWinNoTag).NodeSelector(map[string]string{v1.LabelOSStable: "windows"}).Obj()},
		{name: "OS taints switched off", pod: pod(img2019).Obj(), args: defaultArgs(func(a *config.WindowsAwareArgs) { a.OSTaints.Tolerate = false })},
		{name: "a configured OS taint key", pod: pod(img2019).Obj(), args: defaultArgs(func(a *config.WindowsAwareArgs) { a.OSTaints.Keys = append(a.OSTaints.Keys, "sku") })},
		{name: "extra release token", pod: pod("ghcr.io/acme/app:ltsc2028").Obj(),
			args: defaultArgs(func(a *config.WindowsAwareArgs) {
				a.ExtraReleases = []config.ReleaseToken{{Token: "ltsc2028", Build: "10.0.26100"}}
			})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if args == nil {
				args = defaultArgs()
			}
			pl, err := newWindowsAware(args)
			if err != nil {
				t.Fatal(err)
			}
			d := pl.decider.Decide(tt.pod, nil)
			want := map[string][]string{}
			for _, n := range nodes {
				runs, reason := d.RunsOn(n)
				repels, taintReason := d.TaintsRepel(tt.pod, n, false)
				switch {
				case !runs:
					want[n.Name] = []string{reason}
				case repels:
					want[n.Name] = []string{taintReason}
				default:
					want[n.Name] = nil
				}
			}
			status, got := feasible(t, newFramework(t, args, nodes), tt.pod, nodes)
			if !status.IsSuccess() {
				t.Fatalf("PreFilter: %v", status)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Filter's reasons by node, against the decision's (-want +got):\n%s", diff)
			}
			for _, reasons := range got {
				for _, r := range reasons {
					if !strings.HasPrefix(r, "node(s) ") {
						t.Errorf("reason %q does not follow upstream's node(s) convention", r)
					}
				}
			}
		})
	}
}

// TestPreFilterConflicts: a pod the decision finds contradicts itself is
// rejected at PreFilter as UnschedulableAndUnresolvable, with the
// decision's message; any other goes on to Filter.
func TestPreFilterConflicts(t *testing.T) {
	tests := []struct {
		name     string
		pod      *v1.Pod
		conflict bool
	}{
		{name: "linux pod with a windows image", pod: withOS(pod(imgLinux, img2019), v1.Linux), conflict: true},
		{name: "images no single host runs", pod: pod(img2019, img2022).Obj(), conflict: true},
		{name: "nodeSelector build contradicts the tag", pod: pod(img2022).NodeSelector(map[string]string{v1.LabelWindowsBuild: "10.0.17763"}).Obj(), conflict: true},
		{name: "node affinity build contradicts the tag", pod: pod(img2025).NodeAffinityIn(v1.LabelWindowsBuild, []string{"10.0.17763", "10.0.20348"}, st.NodeSelectorTypeMatchExpressions).Obj(), conflict: true},
		{name: "selector that agrees", pod: pod(img2019).NodeSelector(map[string]string{v1.LabelWindowsBuild: "10.0.17763"}).Obj()},
		{name: "unparsable image is the kubelet's to report", pod: pod("Not A Reference").Obj()},
	}
	pl, err := newWindowsAware(defaultArgs())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := pl.decider.Decide(tt.pod, nil)
			if (d.Conflict() != "") != tt.conflict {
				t.Fatalf("the decision's conflict is %q, want one: %v", d.Conflict(), tt.conflict)
			}
			nodes := testNodes()
			status, _ := feasible(t, newFramework(t, defaultArgs(), nodes), tt.pod, nodes)
			if !tt.conflict {
				if !status.IsSuccess() {
					t.Fatalf("PreFilter = %v, want success", status)
				}
				return
			}
			if status.Code() != fwk.UnschedulableAndUnresolvable || status.Message() != d.Conflict() {
				t.Errorf("PreFilter = %v, want UnschedulableAndUnresolvable with %q", status, d.Conflict())
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
