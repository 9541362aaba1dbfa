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
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/hinttest"
	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/plugins/ostainttoleration"
)

// A node with neither kubernetes.io/os nor beta.kubernetes.io/os is taken
// for a Linux node: the stock scheduler places pods without .spec.os there
// (upstream's scheduler_perf nodes carry no OS label), and no Windows
// kubelet leaves its node unlabelled. So a Linux pod fits it and a Windows
// pod, whether it says so in .spec.os or its images, HostProcess or by the
// configured default, never does.

// unlabelledNode is a node as upstream's scheduler_perf makes them: no OS
// label. kernel, when set, is the kernel version it reports.
func unlabelledNode(name, kernel string, taints ...v1.Taint) *v1.Node {
	n := st.MakeNode().Name(name).Taints(taints).Obj()
	n.Status.NodeInfo.KernelVersion = kernel
	return n
}

// emptyOSTaint is an OS taint's key with no value: on a node with no OS
// label it is an ordinary taint that no implicit toleration lifts.
var emptyOSTaint = v1.Taint{Key: "os", Effect: v1.TaintEffectNoSchedule}

// unlabelledPods are pods of every way WindowsAware works out an OS, and
// whether each fits an unlabelled node.
func unlabelledPods() []struct {
	name string
	pod  *v1.Pod
	args *config.WindowsAwareArgs
	fits bool
} {
	return []struct {
		name string
		pod  *v1.Pod
		args *config.WindowsAwareArgs
		fits bool
	}{
		{name: "no .spec.os, defaultOS linux", pod: pod(imgLinux).Obj(), fits: true},
		{name: "no .spec.os, defaultOS any", pod: pod(imgLinux).Obj(), args: defaultArgs(func(a *config.WindowsAwareArgs) { a.DefaultOS = config.OSAny }), fits: true},
		{name: ".spec.os linux", pod: withOS(pod(imgLinux), v1.Linux), fits: true},
		{name: "a kubernetes.io/os=linux selector", pod: pod(imgLinux).NodeSelector(map[string]string{v1.LabelOSStable: "linux"}).Obj(), fits: true},
		{name: ".spec.os windows", pod: withOS(pod("acme/tool:1.0"), v1.Windows), fits: false},
		{name: "a Windows image of a build", pod: pod(img2022).Obj(), fits: false},
		{name: "a Windows image of no build", pod: pod(imgNano).Obj(), fits: false},
		{name: "HostProcess", pod: hostProcess(pod(img2019)), fits: false},
		{name: "no .spec.os, defaultOS windows", pod: pod("acme/tool:1.0").Obj(), args: defaultArgs(func(a *config.WindowsAwareArgs) { a.DefaultOS = "windows" }), fits: false},
	}
}

// TestFilterOnUnlabelledNodes runs PreFilter and both plugins' Filter: a
// Linux pod fits an unlabelled node (even one whose kernel version is a
// Windows build's), a Windows pod is rejected with the constant OS reason,
// and an empty-value taint there repels the pod as upstream TaintToleration
// would.
func TestFilterOnUnlabelledNodes(t *testing.T) {
	nodes := []*v1.Node{
		unlabelledNode("bare", ""),
		unlabelledNode("windows-kernel", "10.0.20348.2227"),
		unlabelledNode("empty-taint", "", emptyOSTaint),
		fixture.LinuxNode("linux"),
		fixture.WindowsNode("win2022", "10.0.20348"),
	}
	for _, tt := range unlabelledPods() {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if args == nil {
				args = defaultArgs()
			}
			status, verdicts := feasible(t, newFramework(t, args, nodes), tt.pod, nodes)
			if !status.IsSuccess() && status.Code() != fwk.Skip {
				t.Fatalf("PreFilter: %v", status)
			}
			want := []string{ErrReasonOS}
			if tt.fits {
				want = nil
			}
			for _, name := range []string{"bare", "windows-kernel"} {
				if diff := cmp.Diff(want, verdicts[name]); diff != "" {
					t.Errorf("node %s: reasons (-want +got):\n%s", name, diff)
				}
			}
			wantTainted := []string{ErrReasonOS}
			if tt.fits {
				wantTainted = []string{ostainttoleration.ErrReasonUntoleratedTaint}
			}
			if diff := cmp.Diff(wantTainted, verdicts["empty-taint"]); diff != "" {
				t.Errorf("node empty-taint: reasons (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUnlabelledNodesWithoutPreFilter: Filter's own reading of a node's
// labels (no PreFilter state, no class table) gives the same verdicts, and
// Score ranks an unlabelled node as it ranks a Linux node.
func TestUnlabelledNodesWithoutPreFilter(t *testing.T) {
	for _, tt := range unlabelledPods() {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if args == nil {
				args = defaultArgs()
			}
			pl, err := newWindowsAware(args)
			if err != nil {
				t.Fatal(err)
			}
			for _, node := range []*v1.Node{unlabelledNode("bare", ""), unlabelledNode("windows-kernel", "10.0.20348.2227")} {
				s := pl.Filter(context.Background(), newState(), tt.pod, nodeInfo(node))
				if s.IsSuccess() != tt.fits || (!tt.fits && !slices.Equal(s.Reasons(), []string{ErrReasonOS})) {
					t.Errorf("node %s: Filter = %v, want fits %v (else %q)", node.Name, s, tt.fits, ErrReasonOS)
				}
				if !tt.fits {
					continue
				}
				got, s := pl.Score(context.Background(), newState(), tt.pod, nodeInfo(node))
				want, _ := pl.Score(context.Background(), newState(), tt.pod, nodeInfo(fixture.LinuxNode("linux")))
				if !s.IsSuccess() || got != want {
					t.Errorf("node %s: Score = %d, %v; want %d, a Linux node's", node.Name, got, s, want)
				}
			}
		})
	}
}

// TestClassTableKeepsUnlabelledNodesApart: the class table gives an
// unlabelled node a class of its own, whose verdict is the one Filter
// reads for it: Linux pods fit it, Windows pods do not. A Windows node
// that loses its label is judged afresh.
func TestClassTableKeepsUnlabelledNodesApart(t *testing.T) {
	bare, win := unlabelledNode("bare", "10.0.20348.2227"), fixture.WindowsNode("win", "10.0.20348", fixture.WithKernel("10.0.20348.2227"))
	lin := fixture.LinuxNode("linux")
	pl, _ := classedPlugin(t, bare, win, lin)
	table := pl.classes.Current()
	cBare, okBare := table.Class(bare)
	cLinux, okLinux := table.Class(lin)
	cWin, okWin := table.Class(win)
	if !okBare || !okLinux || !okWin || cBare == cLinux || cBare == cWin {
		t.Fatalf("classes: unlabelled %d (%v), linux %d (%v), windows %d (%v); want three", cBare, okBare, cLinux, okLinux, cWin, okWin)
	}
	if got := table.Host(cBare).OS; got != "" {
		t.Errorf("the unlabelled node's class has OS %q, want none", got)
	}
	if !passes(t, pl, pod(imgLinux).Obj(), bare) {
		t.Error("a Linux pod does not pass the unlabelled node by its class")
	}
	if passes(t, pl, pod(img2022).Obj(), bare) {
		t.Error("an ltsc2022 pod passes the unlabelled node by its class")
	}
	unlabelled := win.DeepCopy()
	delete(unlabelled.Labels, v1.LabelOSStable)
	if passes(t, pl, pod(img2022).Obj(), unlabelled) {
		t.Error("an ltsc2022 pod passes a Windows node that lost its OS label, before the table is told")
	}
}

// TestNarrowingLeavesUnlabelledNodesOut: a Windows pod among unlabelled
// nodes is narrowed to its Windows nodes, by the class table's sets and by
// a walk alike.
func TestNarrowingLeavesUnlabelledNodesOut(t *testing.T) {
	nodes := testNodes()
	for i := range 20 {
		nodes = append(nodes, unlabelledNode(fmt.Sprintf("perf-%d", i), ""))
	}
	for name, tc := range map[string]struct {
		pod  *v1.Pod
		want []string
	}{
		"ltsc2019":           {pod(img2019).Obj(), []string{"win2019", "win2019-kernel-only"}},
		"windows, any build": {pod(imgNano).Obj(), []string{"win-banana", "win-unknown", "win2016", "win2019", "win2019-kernel-only", "win2022", "win2025"}},
		"linux":              {pod(imgLinux).Obj(), nil},
	} {
		t.Run(name, func(t *testing.T) {
			walked, _ := classedPlugin(t)
			classed, _ := classedPlugin(t, nodes...)
			for how, pl := range map[string]*WindowsAware{"walk": walked, "class sets": classed} {
				got, _ := narrowed(t, pl, tc.pod, nodes)
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("%s: names (-want +got):\n%s", how, diff)
				}
			}
		})
	}
}

// TestWindowsAwareHintOnUnlabelledNode: an unlabelled node added wakes a
// Linux pod (it fits there) and leaves a Windows pod asleep.
func TestWindowsAwareHintOnUnlabelledNode(t *testing.T) {
	pl, _ := newWindowsAware(defaultArgs(func(a *config.WindowsAwareArgs) { a.DefaultOS = "windows" }))
	hinttest.CheckNodes(t, pl.isSchedulableAfterNodeChange, []hinttest.NodeCase{
		{Name: "windows pod, unlabelled node added", Pod: pod(img2022).Obj(), New: unlabelledNode("n", "10.0.20348.1"), Want: fwk.QueueSkip},
		{Name: "defaulted windows pod, unlabelled node added", Pod: pod("acme/tool:1.0").Obj(), New: unlabelledNode("n", ""), Want: fwk.QueueSkip},
		{Name: "linux pod, unlabelled node added", Pod: withOS(pod(imgLinux), v1.Linux), New: unlabelledNode("n", ""), Want: fwk.Queue},
		{Name: "linux pod, windows node loses its labels", Pod: withOS(pod(imgLinux), v1.Linux), Old: fixture.WindowsNode("n", "10.0.20348", fixture.WithTaints()), New: unlabelledNode("n", ""), Want: fwk.Queue},
	})
}
