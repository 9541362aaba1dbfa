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
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/windows-aware/windows-aware/internal/controlplane"
	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/oracle"
	"github.com/windows-aware/windows-aware/internal/registryserver"
	"github.com/windows-aware/windows-aware/pkg/explain"
	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
	"github.com/windows-aware/windows-aware/pkg/kubectlcmd"
)

// TestUpgradePlan runs kubectl windows-aware upgrade-plan against the real
// API server, with pools of Windows Server 2019, 2022 and 2025 nodes and
// images in the loopback registry published for some releases and not
// others: every verdict of --to 2022 and --to 2025 is the oracle's
// (docs/windows-facts.md); without --resolve the registry's images are
// unknown; a kind the user may not list makes its workloads unknown; bad
// input is exit status 1; and the 2019 pool, relabelled 2022, breaks the
// very pods the what-if named, while the Pending pod it said would land
// there does.
func TestUpgradePlan(t *testing.T) {
	requireRegistryBinary(t)
	e := requireCluster(t)
	bins, err := controlplane.FindBinaries("", "", controlplane.KubectlPlugin)
	if err != nil {
		t.Fatalf("the kubectl plugin: %v", err)
	}
	reg := startRegistry(t, registryserver.Options{InMemory: true})
	pushed, err := reg.PushUpgradeImages(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	// registryBuilds are the builds of the registry's images, for the
	// oracle: their tags name none.
	registryBuilds := map[string][]string{}
	ref := map[string]string{}
	for _, p := range pushed {
		registryBuilds[p.Reference] = p.Builds
		ref[p.Repository] = p.Reference
	}

	node := func(name, pool, build string) *v1.Node {
		n := windowsNode(name, build, fixture.WindowsTaint)
		n.Labels["agentpool"] = pool
		return n
	}
	e.createNodes(node("up19-1", "up19", oracle.Build2019), node("up19-2", "up19", oracle.Build2019),
		node("up22-1", "up22", oracle.Build2022), node("up25-1", "up25", oracle.Build2025))
	ns := e.namespace()

	const (
		iis19 = "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019"
		iis22 = "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022"
		hpImg = "mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image:v1.0.0"
	)
	windowsOS := func(p *v1.Pod) { p.Spec.OS = &v1.PodOS{Name: v1.Windows} }
	hostProc := func(p *v1.Pod) { fixture.HostProcess(p) }
	// The workloads, and the nodes their pods run on, as their
	// controllers and the scheduler would have placed them: no controller
	// manager runs here, so the pods are created bound, with their owners.
	type spec struct {
		kind, name, image string
		mutate            func(*v1.Pod)
		nodes             []string
	}
	specs := []spec{
		{"Deployment", "iis19", iis19, nil, []string{"up19-1", "up19-2"}},
		{"Deployment", "iis22", iis22, nil, []string{"up22-1"}},
		{"DaemonSet", "proxy", hpImg, hostProc, []string{"up19-1", "up19-2", "up22-1", "up25-1"}},
		{"Deployment", "billing", ref["contoso/billing"], windowsOS, []string{"up19-1"}},
		{"Deployment", "portal", ref["contoso/portal"], windowsOS, []string{"up19-2"}},
		{"Deployment", "search", ref["contoso/search"], windowsOS, []string{"up22-1"}},
		{"Deployment", "ledger", ref["contoso/ledger"], windowsOS, []string{"up25-1"}},
	}
	var pods []*v1.Pod
	for _, s := range specs {
		pods = append(pods, createWorkload(t, e, ns, s.kind, s.name, s.image, s.mutate, s.nodes)...)
	}
	// A bare ltsc2022 pod pinned to the 2019 pool: Pending until the pool
	// runs 2022.
	pinned := newPod("pinned", windowsAware, iis22)
	pinned.Spec.NodeSelector = map[string]string{"agentpool": "up19"}
	e.createPod(ns, pinned)
	images := map[string]string{"Pod pinned": iis22}
	for _, s := range specs {
		images[s.kind+" "+s.name] = s.image
	}

	// oracleRuns says, from docs/windows-facts.md, whether a host of build
	// host runs image: a tag's build by the oracle's table, a registry
	// image's by the builds it was pushed with.
	oracleRuns := func(image, host string, hostProcess bool) (runs, known bool) {
		if hostProcess {
			return true, true
		}
		if builds, ok := registryBuilds[image]; ok {
			return slices.ContainsFunc(builds, func(b string) bool { return oracle.Runs(host, b) }), true
		}
		need, err := oracle.ImageNeed(image)
		if err != nil {
			t.Fatal(err)
		}
		return need.Build == "" || oracle.Runs(host, need.Build), need.Build != ""
	}

	// The user's workstation: the registry's credentials in its Docker
	// config, and the scheduler's configuration with the registry trusted.
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".docker"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".docker", "config.json"), registrytest.DockerConfigJSON(reg.Username, reg.Password, reg.Host), 0o600); err != nil {
		t.Fatal(err)
	}
	cfgFile := filepath.Join(home, "scheduler-config.yaml")
	cfg := fmt.Sprintf(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: windows-aware
    plugins:
      multiPoint:
        enabled:
          - name: WindowsAware
    pluginConfig:
      - name: WindowsAware
        args:
          imageResolution:
            scope: Windows
            registries:
              - host: %s
                allowPrivate: true
                caFile: %s
`, reg.Host, strconv.Quote(reg.CAFile))
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (int, string, string) {
		t.Helper()
		return e.runAsUser(bins.KubectlPlugin, e.c.Kubeconfig, home, args...)
	}
	plan := func(args ...string) (int, *explain.UpgradePlan) {
		t.Helper()
		code, out, errOut := run(append([]string{"upgrade-plan", "-n", ns, "-o", "json"}, args...)...)
		if code == kubectlcmd.ExitError {
			t.Fatalf("upgrade-plan %s: exit status 1\nstderr:\n%s", strings.Join(args, " "), errOut)
		}
		var p explain.UpgradePlan
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatalf("not JSON: %v\n%s\nstderr:\n%s", err, out, errOut)
		}
		return code, &p
	}

	for _, target := range []struct{ to, build string }{{"2022", oracle.Build2022}, {"2025", oracle.Build2025}} {
		t.Run("--resolve --to "+target.to+": every verdict is the oracle's", func(t *testing.T) {
			code, p := plan("--to", target.to, "--resolve", "--config", cfgFile)
			if code != kubectlcmd.ExitFinding {
				t.Errorf("exit status %d, want %d: the ltsc2019 Deployment needs a rebuild", code, kubectlcmd.ExitFinding)
			}
			got := map[string]explain.Verdict{}
			for _, w := range p.Workloads {
				got[w.Kind+" "+w.Name] = w.Verdict
				if w.Verdict == explain.VerdictRebuild && w.Kind == "Deployment" && w.Name == "iis19" {
					if s := w.Images[0].SiblingTag; s != "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc"+target.to {
						t.Errorf("iis19's sibling tag %q, want …:windowsservercore-ltsc%s", s, target.to)
					}
				}
			}
			for name, image := range images {
				runs, _ := oracleRuns(image, target.build, name == "DaemonSet proxy")
				want := explain.VerdictRebuild
				if runs {
					want = explain.VerdictReady
				}
				if got[name] != want {
					t.Errorf("%s (%s) on %s: %q, the oracle says %q", name, image, target.build, got[name], want)
				}
			}
			// The ltsc2019 pods block draining: no node staying at 2019
			// runs them once every Windows node moves.
			var blocking []string
			for _, b := range p.Blocking {
				blocking = append(blocking, b.Workload)
			}
			if !slices.Contains(blocking, "Deployment iis19") || !slices.Contains(blocking, "Deployment billing") {
				t.Errorf("blocking %v lacks Deployment iis19 and Deployment billing", blocking)
			}
		})
	}

	t.Run("tags only: the registry's images are unknown, with why", func(t *testing.T) {
		_, p := plan("--to", "2025")
		for _, w := range p.Workloads {
			if _, ok := registryBuilds[images[w.Kind+" "+w.Name]]; !ok {
				continue
			}
			if w.Verdict != explain.VerdictUnknown || !strings.Contains(w.Reason, "its tag names no Windows build: --resolve asks its registry") {
				t.Errorf("%s %s: %s %q, want unknown: its tag names no build", w.Kind, w.Name, w.Verdict, w.Reason)
			}
		}
	})

	t.Run("the 2022 pool to 2025: everything ready, exit status 0", func(t *testing.T) {
		code, p := plan("--to", "2025", "--pool", "agentpool=up22", "--resolve", "--config", cfgFile)
		if code != 0 {
			t.Errorf("exit status %d, want 0; workloads %+v", code, p.Workloads)
		}
		if p.WhatIf == nil || len(p.WhatIf.Breaks) != 0 || !slices.Contains(p.WhatIf.NewWorkloads, "Deployment "+ns+"/ledger") {
			t.Errorf("what-if %+v: want nothing broken and Deployment ledger landing", p.WhatIf)
		}
	})

	t.Run("bad input: exit status 1, naming what is missing", func(t *testing.T) {
		for _, tt := range []struct {
			args    []string
			wantErr string
		}{
			{[]string{"--to", "2031"}, `--to "2031": no Windows release of that name or build in the tag table`},
			{[]string{"--to", "2025", "--pool", "agentpool=up99"}, "--pool agentpool=up99: no node has the label agentpool=up99"},
			{[]string{"--to", "2025", "--as", "nobody@example.com"}, "upgrade-plan needs to list nodes"},
		} {
			code, out, errOut := run(append([]string{"upgrade-plan", "-n", ns}, tt.args...)...)
			if code != kubectlcmd.ExitError || !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("%v: exit status %d, stderr %q; want 1 and %q\nstdout:\n%s", tt.args, code, errOut, tt.wantErr, out)
			}
		}
	})

	t.Run("Deployments forbidden: their pods' workloads are unknown, with why", func(t *testing.T) {
		const user = "upgrade-viewer@example.com"
		e.createObject(&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: ns + "-viewer"}, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"nodes", "pods"}, Verbs: []string{"list", "get"}},
			{APIGroups: []string{"apps"}, Resources: []string{"replicasets", "daemonsets", "statefulsets"}, Verbs: []string{"list"}},
			{APIGroups: []string{"batch"}, Resources: []string{"jobs", "cronjobs"}, Verbs: []string{"list"}},
		}})
		e.createObject(&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: ns + "-viewer"},
			RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: ns + "-viewer"},
			Subjects: []rbacv1.Subject{{Kind: "User", Name: user}}})
		_, p := plan("--to", "2025", "--as", user, "--config", cfgFile)
		found := false
		for _, w := range p.Workloads {
			if w.Kind == "Deployment" && w.Name == "iis19" {
				found = true
				if w.Verdict != explain.VerdictUnknown || !strings.Contains(w.Reason, "you may not list deployments.apps in namespace "+ns) {
					t.Errorf("Deployment iis19: %s %q, want unknown: you may not list deployments.apps", w.Verdict, w.Reason)
				}
			}
		}
		if !found {
			t.Errorf("Deployment iis19 is not planned: %+v", p.Workloads)
		}
	})

	t.Run("the 2019 pool relabelled 2022 breaks the pods the what-if named", func(t *testing.T) {
		_, p := plan("--to", "2022", "--pool", "agentpool=up19", "--resolve", "--config", cfgFile)
		if p.WhatIf == nil {
			t.Fatal("no what-if")
		}
		var predicted, lands []string
		for _, b := range p.WhatIf.Breaks {
			predicted = append(predicted, b.Name)
		}
		for _, l := range p.WhatIf.Lands {
			lands = append(lands, l.Name)
		}
		if !slices.Equal(lands, []string{"pinned"}) {
			t.Errorf("lands %v, want [pinned]", lands)
		}
		for _, name := range []string{"up19-1", "up19-2"} {
			n := e.getNode(name)
			n.Labels[v1.LabelWindowsBuild] = oracle.Build2022
			if _, err := e.client.CoreV1().Nodes().Update(e.ctx, n, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		var broken []string
		for _, pod := range pods {
			if !strings.HasPrefix(pod.Spec.NodeName, "up19-") {
				continue
			}
			sc := pod.Spec.SecurityContext
			hostProcess := sc != nil && sc.WindowsOptions != nil && ptr.Deref(sc.WindowsOptions.HostProcess, false)
			runs, _ := oracleRuns(pod.Spec.Containers[0].Image, buildOf(e.getNode(pod.Spec.NodeName)), hostProcess)
			if !runs {
				broken = append(broken, pod.Name)
			}
		}
		slices.Sort(predicted)
		slices.Sort(broken)
		if len(broken) == 0 || !slices.Equal(predicted, broken) {
			t.Errorf("the what-if predicted %v break; on the relabelled pool the oracle finds %v", predicted, broken)
		}
		if n := e.waitScheduled(ns, "pinned", scheduleTimeout); !strings.HasPrefix(n.Name, "up19-") {
			t.Errorf("pinned landed on %s, want the relabelled pool", n.Name)
		}
	})
}

// createWorkload creates a workload of kind with one container of image,
// and its pods bound to nodes, owned as its controller would own them (a
// Deployment's through a ReplicaSet).
func createWorkload(t *testing.T, e *env, ns, kind, name, image string, mutate func(*v1.Pod), nodes []string) []*v1.Pod {
	t.Helper()
	tmpl := newPod("", windowsAware, image)
	tmpl.Labels = map[string]string{"app": name}
	if mutate != nil {
		mutate(tmpl)
	}
	template := v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: tmpl.Labels}, Spec: tmpl.Spec}
	selector := &metav1.LabelSelector{MatchLabels: tmpl.Labels}
	apps := e.client.AppsV1()
	owner := func(kind, name string, uid types.UID) []metav1.OwnerReference {
		return []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: kind, Name: name, UID: uid, Controller: ptr.To(true)}}
	}
	var refs []metav1.OwnerReference
	switch kind {
	case "Deployment":
		d, err := apps.Deployments(ns).Create(e.ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: appsv1.DeploymentSpec{Selector: selector, Template: template}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rs, err := apps.ReplicaSets(ns).Create(e.ctx, &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: name + "-5f7c", OwnerReferences: owner("Deployment", d.Name, d.UID)},
			Spec: appsv1.ReplicaSetSpec{Selector: selector, Template: template}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		refs = owner("ReplicaSet", rs.Name, rs.UID)
	case "DaemonSet":
		ds, err := apps.DaemonSets(ns).Create(e.ctx, &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: appsv1.DaemonSetSpec{Selector: selector, Template: template}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		refs = owner("DaemonSet", ds.Name, ds.UID)
	default:
		t.Fatalf("kind %s", kind)
	}
	var pods []*v1.Pod
	for i, n := range nodes {
		p := tmpl.DeepCopy()
		p.Name, p.OwnerReferences, p.Spec.NodeName = fmt.Sprintf("%s-%d", name, i), refs, n
		pods = append(pods, e.createPod(ns, p))
	}
	return pods
}
