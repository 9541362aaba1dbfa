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
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/windows-aware/windows-aware/internal/controlplane"
	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/localwebhook"
	"github.com/windows-aware/windows-aware/internal/oracle"
	"github.com/windows-aware/windows-aware/pkg/warnings"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// TestApplyWarnings runs bin/admission --warnings on loopback, registered
// with the real kube-apiserver as the chart registers it (a validating
// webhook, failurePolicy Ignore, and its enforcing entry), for the test's
// namespace, on a cluster with no Windows Server 2016 node:
//
//   - the real kubectl apply of a Deployment of an ltsc2016 image prints
//     the warning, with the pool to add, and the Deployment is created;
//   - kubectl apply of a pod that declares Linux and runs an ltsc2022
//     image prints the conflict and its fix;
//   - with the publish webhook registered as the chart registers it with
//     warnings on, kubectl apply of an ltsc2016 pod of the profile prints
//     the warning once (from /mutate/warnings), and the pod is published;
//   - in the namespace labelled windows-aware.x-k8s.io/enforce=true, the
//     same Deployment is refused, and one that runs is created.
func TestApplyWarnings(t *testing.T) {
	e := requireCluster(t)
	ns := e.namespace()
	e.createNodes(
		linuxNode("warn-linux"),
		windowsNode("warn-win-2022", oracle.Build2022, fixture.WindowsTaint),
	)
	bins, err := controlplane.FindBinaries("", "", controlplane.Admission, controlplane.Kubectl)
	if err != nil {
		t.Fatalf("binaries: %v", err)
	}
	webhook, err := localwebhook.Start(e.ctx, e.c, localwebhook.Options{
		Name:   "admission-warnings-" + ns,
		PKIDir: filepath.Join(e.c.Dir, "warnings-pki-"+ns),
		Args: []string{
			"--config=" + e.c.SchedulerConfigFile, "--profile=" + windowsAware, "--metrics-auth=none",
			"--kubeconfig=" + e.c.Kubeconfig, "--warnings",
		},
	})
	if err != nil {
		t.Fatalf("starting the webhook: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("admission log ends with:\n%s", webhook.Tail(6000))
		}
		webhook.Stop(10 * time.Second)
	})
	e.registerWarningsWebhook(ns, webhook)

	kubectlApply := func(manifest string) (string, error) {
		cmd := exec.CommandContext(e.ctx, bins.Kubectl, "--kubeconfig", e.c.Kubeconfig, "apply", "-n", ns, "-f", "-")
		cmd.Stdin = strings.NewReader(manifest)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}
	legacy := func(name string) string {
		return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ` + name + `}
spec:
  selector: {matchLabels: {app: ` + name + `}}
  template:
    metadata: {labels: {app: ` + name + `}}
    spec:
      schedulerName: windows-aware
      containers:
        - name: iis
          image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2016
`
	}
	// The API server starts calling a new webhook within a few seconds;
	// until it does, apply prints no warning. Each try applies a
	// Deployment of its own, so that every apply is a creation.
	var out string
	deadline := time.Now().Add(30 * time.Second)
	for try := 0; ; try++ {
		out, err = kubectlApply(legacy(fmt.Sprintf("legacy-%d", try)))
		if err != nil {
			t.Fatalf("kubectl apply: %v\n%s", err, out)
		}
		if strings.Contains(out, "Warning: windows-aware:") || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Second)
	}
	t.Logf("kubectl apply of an ltsc2016 Deployment:\n%s", out)
	for _, want := range []string{
		"Warning: windows-aware: Deployment legacy-",
		"runs on none of the cluster's",
		"no node runs 10.0.14393 (ltsc2016): add a Windows Server 2016 pool, or retag the image for ltsc2022",
		"deployment.apps/legacy-",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("kubectl apply printed no %q", want)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if w, ok := strings.CutPrefix(line, "Warning: "); ok && len(w) > warnings.MaxLength {
			t.Errorf("a warning of %d characters: %q", len(w), w)
		}
	}

	out, err = kubectlApply(`apiVersion: v1
kind: Pod
metadata: {name: mixed}
spec:
  os: {name: linux}
  containers:
    - name: app
      image: mcr.microsoft.com/windows/nanoserver:ltsc2022
`)
	t.Logf("kubectl apply of a pod that declares Linux with an ltsc2022 image:\n%s", out)
	if err != nil {
		t.Fatalf("kubectl apply: %v", err)
	}
	for _, want := range []string{
		"Warning: windows-aware: Pod mixed: pod sets .spec.os.name linux but image",
		"Warning: windows-aware: fix: make the pod's OS",
		"pod/mixed created",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("kubectl apply printed no %q", want)
		}
	}

	// A pod of the profile: with the publish webhook registered as the
	// chart registers it with warnings on, it is published and warned in
	// one review, /mutate/warnings's: the validating webhook leaves it to
	// it. (Had both answered, the API server would send the warning
	// once all the same: the webhook's count of warned reviews tells.)
	e.registerPublishWithWarnings(ns, webhook)
	metrics := newScraper(t, e.c)
	warned := func() float64 {
		return counter(metrics.scrape(webhook.Process), "windows_aware_admission_warnings_total", map[string]string{"outcome": "warned"})
	}
	profilePod := func(name string) string {
		return `apiVersion: v1
kind: Pod
metadata: {name: ` + name + `}
spec:
  schedulerName: windows-aware
  containers:
    - name: iis
      image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2016
`
	}
	var published *v1.Pod
	var reviews float64
	deadline = time.Now().Add(30 * time.Second)
	for try := 0; ; try++ {
		name := fmt.Sprintf("legacy-pod-%d", try)
		before := warned()
		if out, err = kubectlApply(profilePod(name)); err != nil {
			t.Fatalf("kubectl apply: %v\n%s", err, out)
		}
		reviews = warned() - before
		if published, err = e.client.CoreV1().Pods(ns).Get(e.ctx, name, metav1.GetOptions{}); err != nil {
			t.Fatal(err)
		}
		if published.Spec.NodeSelector[v1.LabelOSStable] != "" || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Second)
	}
	t.Logf("kubectl apply of an ltsc2016 pod of the profile (%v warned reviews):\n%s", reviews, out)
	if published.Spec.NodeSelector[v1.LabelOSStable] != "windows" {
		t.Errorf("the pod was not published by /mutate/warnings: nodeSelector %v", published.Spec.NodeSelector)
	}
	if !strings.Contains(out, "Warning: windows-aware: Pod legacy-pod-") || !strings.Contains(out, "add a Windows Server 2016 pool") {
		t.Errorf("kubectl apply printed no warning with the fix for the profile's pod")
	}
	if reviews != 1 {
		t.Errorf("the webhook warned in %v reviews for one pod of the profile, want 1 (/mutate/warnings alone)", reviews)
	}

	// Enforced: the namespace's label turns the warnings into a refusal.
	nsObj, err := e.client.CoreV1().Namespaces().Get(e.ctx, ns, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nsObj.Labels[wellknown.LabelEnforce] = "true"
	if _, err := e.client.CoreV1().Namespaces().Update(e.ctx, nsObj, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(30 * time.Second)
	for {
		out, err = kubectlApply(legacy("enforced"))
		if err != nil || time.Now().After(deadline) {
			break
		}
		_ = e.client.AppsV1().Deployments(ns).Delete(e.ctx, "enforced", metav1.DeleteOptions{})
		time.Sleep(time.Second)
	}
	t.Logf("kubectl apply where the namespace enforces:\n%s", out)
	if err == nil || !strings.Contains(out, wellknown.LabelEnforce+"=true") || !strings.Contains(out, "add a Windows Server 2016 pool") {
		t.Errorf("the ltsc2016 Deployment was not refused where the namespace enforces (err %v)", err)
	}
	// A pod of the profile there: published by /mutate, without
	// warnings, and refused by the enforcing validating webhook.
	if out, err := kubectlApply(profilePod("enforced-pod")); err == nil || !strings.Contains(out, wellknown.LabelEnforce+"=true") || strings.Contains(out, "Warning: windows-aware:") {
		t.Errorf("an ltsc2016 pod of the profile where the namespace enforces: want a refusal and no warning (err %v):\n%s", err, out)
	}
	if out, err := kubectlApply(strings.ReplaceAll(strings.ReplaceAll(legacy("runs"), "windowsservercore-ltsc2016", "windowsservercore-ltsc2022"), "legacy", "runs")); err != nil {
		t.Errorf("a Deployment that runs was refused: %v\n%s", err, out)
	}
}

// registerWarningsWebhook registers the chart's warnings webhooks for
// namespace ns alone, calling webhook's /warnings and /warnings/enforce.
// It is deleted when the test ends.
func (e *env) registerWarningsWebhook(ns string, webhook *localwebhook.Webhook) {
	e.t.Helper()
	cfg := localwebhook.Warnings("warnings-"+ns, windowsAware, webhook.URL, webhook.CABundle, 5)
	for i := range cfg.Webhooks {
		cfg.Webhooks[i].NamespaceSelector = localwebhook.OnlyNamespaces(cfg.Webhooks[i].NamespaceSelector, ns)
	}
	client := e.client.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	if _, err := client.Create(e.ctx, cfg, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = client.Delete(e.ctx, cfg.Name, metav1.DeleteOptions{}) })
}

// registerPublishWithWarnings registers the chart's publish webhook as it
// is with warnings on, for namespace ns alone: the profile's pods go to
// webhook's /mutate/warnings, or to /mutate where the namespace enforces.
func (e *env) registerPublishWithWarnings(ns string, webhook *localwebhook.Webhook) {
	e.t.Helper()
	root, err := controlplane.RepoRoot()
	if err != nil {
		e.t.Fatal(err)
	}
	shipped, err := localwebhook.ReadMutating(filepath.Join(root, "manifests", "publish", "mutatingwebhookconfiguration.yaml"), webhook.URL, webhook.CABundle, true)
	if err != nil {
		e.t.Fatal(err)
	}
	// The publish entries alone: the opt-in is not this test's.
	cfg := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "publish-warnings-" + ns}}
	for _, w := range shipped.Webhooks {
		if w.Name == localwebhook.PublishWebhook || w.Name == localwebhook.EnforcedPublishWebhook {
			w.NamespaceSelector = localwebhook.OnlyNamespaces(w.NamespaceSelector, ns)
			w.TimeoutSeconds = ptr.To[int32](5)
			cfg.Webhooks = append(cfg.Webhooks, w)
		}
	}
	client := e.client.AdmissionregistrationV1().MutatingWebhookConfigurations()
	if _, err := client.Create(e.ctx, cfg, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = client.Delete(e.ctx, cfg.Name, metav1.DeleteOptions{}) })
}
