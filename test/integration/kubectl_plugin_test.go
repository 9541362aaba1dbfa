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
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/windows-aware/windows-aware/internal/controlplane"
	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/pkg/kubectlcmd"
)

// TestKubectlPlugin runs kubectl windows-aware as a user would, against
// the real API server: with only $KUBECONFIG set, explain names the pools
// that do not run a Pending ltsc2019 pod, why, and the fix; the same with
// --context on a kubeconfig of two contexts whose current one leads
// nowhere; scheduler explain, given --kubeconfig, says the same; status
// lists the pools by build and the scheduler's refusal.
func TestKubectlPlugin(t *testing.T) {
	e := requireCluster(t)
	bins, err := controlplane.FindBinaries("", "", controlplane.KubectlPlugin, controlplane.Scheduler)
	if err != nil {
		t.Fatalf("the kubectl plugin: %v", err)
	}
	ns := e.namespace()
	linux := fixture.Node("kwa-linux-1", fixture.NodeOptions{OS: "linux"})
	linux.Labels["kubernetes.azure.com/agentpool"] = "kwalinux"
	win := fixture.Node("kwa-win22-1", fixture.NodeOptions{OS: "windows", Build: "10.0.20348"})
	win.Labels["kubernetes.azure.com/agentpool"] = "kwawin22"
	e.createNodes(linux, win)
	pod := fixture.Pod("iis", windowsAware, "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019")
	if _, err := e.client.CoreV1().Pods(ns).Create(e.ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	twoContexts := filepath.Join(dir, "two-contexts")
	writeTwoContexts(t, e.c.Kubeconfig, twoContexts)
	run := func(kubeconfig string, args ...string) (int, string, string) {
		t.Helper()
		bin := bins.KubectlPlugin
		if args[0] == "scheduler" {
			bin, args = bins.Scheduler, args[1:]
		}
		return e.runAsUser(bin, kubeconfig, dir, args...)
	}

	explains := []struct {
		name       string
		kubeconfig string
		args       []string
	}{
		{"only $KUBECONFIG", e.c.Kubeconfig, []string{"explain", "-n", ns, "pod/iis"}},
		{"--context of a kubeconfig with two", twoContexts, []string{"explain", "--context", "test", "-n", ns, "pod/iis"}},
		{"scheduler explain --kubeconfig", "", []string{"scheduler", "explain", "--kubeconfig", e.c.Kubeconfig, "-n", ns, "pod/iis"}},
	}
	for _, tt := range explains {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := run(tt.kubeconfig, tt.args...)
			if code != kubectlcmd.ExitFinding {
				t.Fatalf("exit status %d, want %d (no node runs the pod)\nstdout:\n%s\nstderr:\n%s", code, kubectlcmd.ExitFinding, out, errOut)
			}
			for _, want := range []string{
				"Pod " + ns + "/iis (cluster)",
				"pool kwalinux: linux amd64", "node(s) didn't match Pod's OS",
				"pool kwawin22: windows 10.0.20348 amd64", "node(s) had an incompatible Windows build",
				"fix        no node runs 10.0.17763 (ltsc2019): add a Windows Server 2019 pool, or retag the image for ltsc2022",
			} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
		})
	}
	t.Run("the current context of two, which leads nowhere", func(t *testing.T) {
		if code, out, errOut := run(twoContexts, "explain", "-n", ns, "pod/iis"); code != kubectlcmd.ExitError {
			t.Errorf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", code, kubectlcmd.ExitError, out, errOut)
		}
	})

	t.Run("status", func(t *testing.T) {
		var s kubectlcmd.Status
		deadline := time.Now().Add(scheduleTimeout)
		for {
			code, out, errOut := run(e.c.Kubeconfig, "status", "-n", ns, "-o", "json")
			if code != 0 {
				t.Fatalf("exit status %d\nstderr:\n%s", code, errOut)
			}
			s = kubectlcmd.Status{}
			if err := json.Unmarshal([]byte(out), &s); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, out)
			}
			if slices.ContainsFunc(s.Refusals, func(r kubectlcmd.Refusal) bool { return r.Pod == "iis" && r.Reason == "FailedScheduling" }) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no FailedScheduling refusal of pod iis in %+v", s.Refusals)
			}
			time.Sleep(time.Second)
		}
		if !slices.ContainsFunc(s.Pools, func(p kubectlcmd.PoolStatus) bool {
			return p.Pool == "kwawin22" && p.OS == "windows" && p.Build == "10.0.20348" && p.Release == "ltsc2022" && p.Nodes == 1
		}) {
			t.Errorf("pools %+v lack kwawin22, one ltsc2022 node", s.Pools)
		}
	})
}

// writeTwoContexts writes a kubeconfig with the cluster of from as
// context "test", and a current context "nowhere" whose server does not
// answer.
func writeTwoContexts(t *testing.T, from, to string) {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(from)
	if err != nil {
		t.Fatal(err)
	}
	current := cfg.Contexts[cfg.CurrentContext]
	cfg.Contexts = map[string]*clientcmdapi.Context{
		"test":    current,
		"nowhere": {Cluster: "nowhere", AuthInfo: current.AuthInfo},
	}
	cfg.Clusters["nowhere"] = &clientcmdapi.Cluster{Server: "https://127.0.0.1:1"}
	cfg.CurrentContext = "nowhere"
	if err := clientcmd.WriteToFile(*cfg, to); err != nil {
		t.Fatal(err)
	}
}
