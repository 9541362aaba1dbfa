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
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/windows-aware/windows-aware/internal/controlplane"
	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/pkg/explain"
	"github.com/windows-aware/windows-aware/pkg/kubectlcmd"
)

// TestDaemonSetReport runs kubectl windows-aware status against the real
// API server: a Linux DaemonSet that tolerates every taint, and a Windows
// agent DaemonSet that misses the Windows nodes' taint, are reported with
// the kubectl patch that fixes each; running that command, as printed,
// with kubectl makes the report clean of it.
func TestDaemonSetReport(t *testing.T) {
	e := requireCluster(t)
	bins, err := controlplane.FindBinaries("", "", controlplane.KubectlPlugin)
	if err != nil {
		t.Fatalf("the kubectl plugin: %v", err)
	}
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skipf("kubectl not on PATH (bin/tools): %v", err)
	}
	ns := e.namespace()
	// The agent selects a pool of this test's own, so that no other
	// test's Windows nodes change what it reaches.
	const pool = "kubernetes.azure.com/agentpool"
	linux := fixture.Node("kwa-ds-linux-1", fixture.NodeOptions{OS: "linux"})
	win := fixture.Node("kwa-ds-win22-1", fixture.NodeOptions{OS: "windows", Build: "10.0.20348", Taints: []v1.Taint{fixture.WindowsTaint}})
	win.Labels[pool] = "kwadswin"
	e.createNodes(linux, win)

	daemonSet := func(name, image string, spec func(*v1.PodSpec)) *appsv1.DaemonSet {
		labels := map[string]string{"app": name}
		d := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
		d.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels}
		d.Spec.Template.Labels = labels
		d.Spec.Template.Spec.Containers = []v1.Container{{Name: "c", Image: image}}
		spec(&d.Spec.Template.Spec)
		return d
	}
	for _, d := range []*appsv1.DaemonSet{
		daemonSet("node-exporter", "quay.io/prometheus/node-exporter:v1.8.2", func(s *v1.PodSpec) {
			s.Tolerations = []v1.Toleration{{Operator: v1.TolerationOpExists}}
		}),
		daemonSet("win-agent", "mcr.microsoft.com/windows/nanoserver:ltsc2022", func(s *v1.PodSpec) {
			s.NodeSelector = map[string]string{v1.LabelOSStable: "windows", pool: "kwadswin"}
		}),
	} {
		if _, err := e.client.AppsV1().DaemonSets(ns).Create(e.ctx, d, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	dir := t.TempDir()
	status := func() (map[string]explain.DaemonSetReport, string) {
		t.Helper()
		code, out, errOut := e.runAsUser(bins.KubectlPlugin, e.c.Kubeconfig, dir, "status", "-n", ns, "-o", "json")
		if code != 0 {
			t.Fatalf("status: exit status %d\nstderr:\n%s", code, errOut)
		}
		var s kubectlcmd.Status
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, out)
		}
		byName := map[string]explain.DaemonSetReport{}
		for _, d := range s.DaemonSets {
			byName[d.Name] = d
		}
		_, text, _ := e.runAsUser(bins.KubectlPlugin, e.c.Kubeconfig, dir, "status", "-n", ns)
		return byName, text
	}
	found, text := status()
	tests := []struct {
		name, why, patch string
	}{
		{"node-exporter", "whose OS or build its images cannot run", `{"spec":{"template":{"spec":{"nodeSelector":{"kubernetes.io/os":"linux"}}}}}`},
		{"win-agent", "it reaches no Windows node: it does not tolerate their taint(s) os=windows:NoSchedule",
			`{"spec":{"template":{"spec":{"tolerations":[{"key":"os","operator":"Equal","value":"windows","effect":"NoSchedule"}]}}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, ok := found[tt.name]
			if !ok {
				t.Fatalf("status does not report daemonset %s:\n%s", tt.name, text)
			}
			if !strings.Contains(d.Why, tt.why) || d.Patch != tt.patch {
				t.Fatalf("daemonset %s: why %q, patch %s; want why with %q, patch %s", tt.name, d.Why, d.Patch, tt.why, tt.patch)
			}
			fix := "kubectl -n " + ns + " patch daemonset " + tt.name + " --type merge -p '" + tt.patch + "'"
			if d.Fix != fix || !strings.Contains(text, "fix "+ns+"/"+tt.name+": "+fix) {
				t.Fatalf("fix %q, want %q, printed:\n%s", d.Fix, fix, text)
			}
			// The command as printed, as a user pastes it into a shell.
			cmd := exec.CommandContext(e.ctx, "sh", "-c", d.Fix)
			cmd.Env = []string{"KUBECONFIG=" + e.c.Kubeconfig, "HOME=" + dir, "PATH=" + strings.TrimSuffix(kubectl, "/kubectl") + ":" + os.Getenv("PATH")}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", d.Fix, err, out)
			}
			if after, text := status(); after[tt.name].Name != "" {
				t.Errorf("after the patch, status still reports %s: %+v\n%s", tt.name, after[tt.name], text)
			}
		})
	}
}
