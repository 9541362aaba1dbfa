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
package integration

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/windows-aware/windows-aware/internal/controlplane"
	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/oracle"
	"github.com/windows-aware/windows-aware/pkg/explain"
	"github.com/windows-aware/windows-aware/pkg/kubectlcmd"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// TestUpgradePlanPins runs kubectl windows-aware upgrade-plan against the
// real API server on an AKS-like cluster (pools labelled with their OS
// SKU) whose workloads are pinned to a build as the Kubernetes guide
// writes them: its build nodeSelector, its RuntimeClass per build, AKS's
// OS SKU selector, and an agent DaemonSet pinned to 2022. Every verdict
// of --to 2022 and --to 2025 is checked, a pod whose images no host runs
// together is listed as running nowhere, the agent loses the moved nodes,
// and AKS's in-place OS SKU migration of the 2022 pool, done to the
// nodes, leaves Pending exactly the pods the what-if named stranded.
func TestUpgradePlanPins(t *testing.T) {
	e := requireCluster(t)
	bins, err := controlplane.FindBinaries("", "", controlplane.KubectlPlugin)
	if err != nil {
		t.Fatalf("the kubectl plugin: %v", err)
	}
	node := func(name, pool, build, sku string) *v1.Node {
		n := windowsNode(name, build, fixture.WindowsTaint)
		n.Labels["agentpool"], n.Labels[wellknown.LabelAKSOSSKU] = pool, sku
		return n
	}
	e.createNodes(node("pin19-1", "pin19", oracle.Build2019, "Windows2019"),
		node("pin22-1", "pin22", oracle.Build2022, "Windows2022"), node("pin22-2", "pin22", oracle.Build2022, "Windows2022"),
		node("pin25-1", "pin25", oracle.Build2025, "Windows2025"))
	// The guide's RuntimeClass for Windows Server 2022.
	rc := &nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "windows-2022"}, Handler: "runhcs-wcow-process",
		Scheduling: &nodev1.Scheduling{
			NodeSelector: map[string]string{v1.LabelOSStable: "windows", v1.LabelArchStable: "amd64", v1.LabelWindowsBuild: oracle.Build2022},
			Tolerations:  []v1.Toleration{fixture.WindowsToleration}}}
	if _, err := e.client.NodeV1().RuntimeClasses().Create(e.ctx, rc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.client.NodeV1().RuntimeClasses().Delete(e.ctx, rc.Name, metav1.DeleteOptions{}) })
	ns := e.namespace()

	const (
		nano22 = "mcr.microsoft.com/windows/nanoserver:ltsc2022"
		iis19  = "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019"
		iis22  = "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022"
	)
	tolerate := func(p *v1.Pod) { p.Spec.Tolerations = []v1.Toleration{fixture.WindowsToleration} }
	pin := func(key, value string) func(*v1.Pod) {
		return func(p *v1.Pod) {
			tolerate(p)
			p.Spec.NodeSelector = map[string]string{v1.LabelOSStable: "windows", key: value}
		}
	}
	withRuntimeClass := func(p *v1.Pod) { p.Spec.RuntimeClassName = ptr.To(rc.Name) }
	type spec struct {
		kind, name string
		images     []string
		mutate     func(*v1.Pod)
		nodes      []string
	}
	specs := []spec{
		{"Deployment", "nano-build", []string{nano22}, pin(v1.LabelWindowsBuild, oracle.Build2022), []string{"pin22-1"}},
		{"Deployment", "iis-runtimeclass", []string{iis22}, withRuntimeClass, []string{"pin22-2"}},
		{"Deployment", "nano-sku", []string{nano22}, pin(wellknown.LabelAKSOSSKU, "Windows2022"), []string{"pin22-1"}},
		{"Deployment", "nano-free", []string{nano22}, tolerate, []string{"pin22-2"}},
		{"Deployment", "mixed", []string{iis19, iis22}, tolerate, nil},
		{"DaemonSet", "agent-2022", []string{nano22}, pin(v1.LabelWindowsBuild, oracle.Build2022), []string{"pin22-1", "pin22-2"}},
	}
	for _, s := range specs {
		createWorkload(t, e, ns, s.kind, s.name, s.images[0], func(p *v1.Pod) {
			for i, img := range s.images[1:] {
				p.Spec.Containers = append(p.Spec.Containers, v1.Container{Name: "c" + string(rune('1'+i)), Image: img})
			}
			s.mutate(p)
		}, s.nodes)
	}

	plan := func(args ...string) (int, *explain.UpgradePlan, string) {
		t.Helper()
		code, out, errOut := e.runAsUser(bins.KubectlPlugin, e.c.Kubeconfig, t.TempDir(), append([]string{"upgrade-plan", "-n", ns}, args...)...)
		if code == kubectlcmd.ExitError {
			t.Fatalf("upgrade-plan %s: exit status 1\nstderr:\n%s", strings.Join(args, " "), errOut)
		}
		if !slices.Contains(args, "json") {
			return code, nil, out
		}
		var p explain.UpgradePlan
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatalf("not JSON: %v\n%s\nstderr:\n%s", err, out, errOut)
		}
		return code, &p, out
	}
	verdicts := func(p *explain.UpgradePlan) map[string]explain.WorkloadPlan {
		out := map[string]explain.WorkloadPlan{}
		for _, w := range p.Workloads {
			out[w.Kind+" "+w.Name] = w
		}
		return out
	}

	for _, tt := range []struct {
		to   string
		want map[string]explain.Verdict
		// wantFix are substrings of each retargeted workload's fixes.
		wantFix map[string]string
		// wantLosing are the agents that lose moved nodes.
		wantLosing []string
	}{
		{to: "2022", want: map[string]explain.Verdict{
			"Deployment nano-build": explain.VerdictReady, "Deployment iis-runtimeclass": explain.VerdictReady,
			"Deployment nano-sku": explain.VerdictReady, "Deployment nano-free": explain.VerdictReady,
			"Deployment mixed": explain.VerdictNowhere, "DaemonSet agent-2022": explain.VerdictReady,
		}},
		{to: "2025", want: map[string]explain.Verdict{
			"Deployment nano-build": explain.VerdictRetarget, "Deployment iis-runtimeclass": explain.VerdictRetarget,
			"Deployment nano-sku": explain.VerdictRetarget, "Deployment nano-free": explain.VerdictReady,
			"Deployment mixed": explain.VerdictNowhere, "DaemonSet agent-2022": explain.VerdictRetarget,
		}, wantFix: map[string]string{
			"Deployment nano-build":       `"key":"node.kubernetes.io/windows-build","operator":"In","values":["10.0.20348","10.0.26100"]`,
			"Deployment iis-runtimeclass": `"runtimeClassName":"windows-2025"`,
			"Deployment nano-sku":         `"key":"kubernetes.azure.com/os-sku","operator":"In","values":["Windows2022","Windows2025"]`,
			"DaemonSet agent-2022":        `"key":"node.kubernetes.io/windows-build","operator":"In","values":["10.0.20348","10.0.26100"]`,
		}, wantLosing: []string{"agent-2022"}},
	} {
		t.Run("--to "+tt.to, func(t *testing.T) {
			code, p, _ := plan("--to", tt.to, "-o", "json")
			if code != kubectlcmd.ExitFinding {
				t.Errorf("exit status %d, want %d: mixed runs nowhere", code, kubectlcmd.ExitFinding)
			}
			got := verdicts(p)
			for name, want := range tt.want {
				if w := got[name]; w.Verdict != want {
					t.Errorf("%s: %q (%s), want %q", name, w.Verdict, w.Reason, want)
				}
				if fix := tt.wantFix[name]; fix != "" && !strings.Contains(strings.Join(got[name].Fixes, "\n"), fix) {
					t.Errorf("%s: fixes %q lack %s", name, got[name].Fixes, fix)
				}
			}
			if w := got["Deployment mixed"]; !strings.Contains(w.Reason, "no single host runs") {
				t.Errorf("mixed: reason %q, want the images no single host runs", w.Reason)
			}
			var losing []string
			for _, a := range p.Agents {
				if a.Loses() {
					losing = append(losing, a.Name)
				}
			}
			if !slices.Equal(losing, tt.wantLosing) || p.Summary.AgentsLosing != len(tt.wantLosing) {
				t.Errorf("agents losing moved nodes %v (summary %d), want %v; agents %+v", losing, p.Summary.AgentsLosing, tt.wantLosing, p.Agents)
			}
		})
	}

	t.Run("the table names the new verdicts, the agent and the fix", func(t *testing.T) {
		_, _, out := plan("--to", "2025")
		for _, want := range []string{
			"Deployment " + ns + "/nano-build", "retarget", "nodeSelector node.kubernetes.io/windows-build=10.0.20348 selects no node once the nodes move",
			"1 run nowhere", "AGENT", "DaemonSet " + ns + "/agent-2022",
			"1 of 1 agent(s) lose moved nodes",
			"kubectl label nodes -l node.kubernetes.io/windows-build=10.0.20348 windows-aware.x-k8s.io/retiring=true",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("the table lacks %q:\n%s", want, out)
			}
		}
	})

	t.Run("the fixes, run as printed, make the retargeted workloads ready for 2025", func(t *testing.T) {
		kubectl, err := exec.LookPath("kubectl")
		if err != nil {
			t.Skipf("kubectl not on PATH (bin/tools): %v", err)
		}
		_, before, _ := plan("--to", "2025", "-o", "json")
		// The agent's fix is that of its workload row too.
		for _, w := range before.Workloads {
			if w.Verdict != explain.VerdictRetarget || w.Kind == "DaemonSet" && w.Name != "agent-2022" {
				continue
			}
			for _, fix := range w.Fixes {
				cmd := exec.CommandContext(e.ctx, "sh", "-c", fix)
				cmd.Env = []string{"KUBECONFIG=" + e.c.Kubeconfig, "HOME=" + t.TempDir(), "PATH=" + filepath.Dir(kubectl) + ":" + os.Getenv("PATH")}
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s %s: %s: %v\n%s", w.Kind, w.Name, fix, err, out)
				}
			}
		}
		t.Cleanup(func() { _ = e.client.NodeV1().RuntimeClasses().Delete(e.ctx, "windows-2025", metav1.DeleteOptions{}) })
		code, after, _ := plan("--to", "2025", "-o", "json")
		for name, w := range verdicts(after) {
			want := explain.VerdictReady
			if name == "Deployment mixed" {
				want = explain.VerdictNowhere
			}
			if w.Verdict != want {
				t.Errorf("after the fixes, %s: %q (%s), want %q", name, w.Verdict, w.Reason, want)
			}
		}
		if after.Summary.AgentsLosing != 0 || code != kubectlcmd.ExitFinding {
			t.Errorf("after the fixes: %d agent(s) lose moved nodes, exit status %d; want 0 and %d (mixed still runs nowhere)", after.Summary.AgentsLosing, code, kubectlcmd.ExitFinding)
		}
	})

	t.Run("AKS's in-place OS SKU migration leaves Pending the pods the what-if named", func(t *testing.T) {
		_, p, _ := plan("--to", "2025", "--pool", wellknown.LabelAKSOSSKU+"=Windows2022", "-o", "json")
		var stranded []string
		for _, s := range p.WhatIf.Stranded {
			stranded = append(stranded, s.Workload)
		}
		slices.Sort(stranded)
		stranded = slices.Compact(stranded)
		want := []string{"DaemonSet agent-2022", "Deployment iis-runtimeclass", "Deployment nano-build", "Deployment nano-sku"}
		if !slices.Equal(stranded, want) {
			t.Fatalf("stranded %v, want %v", stranded, want)
		}
		// The migration: the pool's nodes come back as Windows Server
		// 2025, as AKS relabels them.
		for _, name := range []string{"pin22-1", "pin22-2"} {
			n := e.getNode(name)
			n.Labels[v1.LabelWindowsBuild], n.Labels[wellknown.LabelAKSOSSKU] = oracle.Build2025, "Windows2025"
			if _, err := e.client.CoreV1().Nodes().Update(e.ctx, n, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		// The drained pods come back through the scheduler: the stranded
		// ones stay Pending, the free one lands.
		var pending []*v1.Pod
		for _, s := range specs {
			if s.kind != "Deployment" || s.name == "mixed" {
				continue
			}
			pod := newPod(s.name+"-after", windowsAware, s.images...)
			s.mutate(pod)
			pod = e.createPod(ns, pod)
			if s.name == "nano-free" {
				if n := e.waitScheduled(ns, pod.Name, scheduleTimeout); buildOf(n) != oracle.Build2025 {
					t.Errorf("nano-free landed on %s (%s), want a 2025 node", n.Name, buildOf(n))
				}
				continue
			}
			pending = append(pending, pod)
		}
		e.waitUnschedulable(ns, pending, scheduleTimeout)
	})
}
