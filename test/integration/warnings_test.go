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
	"os"
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
	"github.com/windows-aware/windows-aware/internal/localproc"
	"github.com/windows-aware/windows-aware/internal/oracle"
	"github.com/windows-aware/windows-aware/internal/pki"
	"github.com/windows-aware/windows-aware/pkg/publish"
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
	ca, err := pki.NewCA(filepath.Join(e.c.Dir, "warnings-pki-"+ns), "windows-aware-warnings-test-ca")
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile, err := ca.IssueLoopbackServing("warnings", "windows-aware-warnings")
	if err != nil {
		t.Fatal(err)
	}
	port, err := localproc.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	webhook, err := e.c.Run(e.ctx, "admission-warnings-"+ns, bins.Admission, []string{
		"--config=" + e.c.SchedulerConfigFile, "--profile=" + windowsAware,
		"--bind-address=127.0.0.1", fmt.Sprintf("--port=%d", port),
		"--tls-cert-file=" + certFile, "--tls-private-key-file=" + keyFile,
		"--shutdown-delay=0s", "-v=2", "--metrics-auth=none",
		"--kubeconfig=" + e.c.Kubeconfig, "--warnings",
	}, fmt.Sprintf("https://127.0.0.1:%d/healthz", port))
	if err != nil {
		t.Fatalf("starting the webhook: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("admission log ends with:\n%s", webhook.Tail(6000))
		}
		webhook.Stop(10 * time.Second)
	})
	e.registerWarningsWebhook(ns, ca.CertFile, fmt.Sprintf("https://127.0.0.1:%d", port))

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
		if w, ok := strings.CutPrefix(line, "Warning: "); ok && len(w) > publish.MaxWarningLength {
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
	e.registerPublishWithWarnings(ns, ca.CertFile, fmt.Sprintf("https://127.0.0.1:%d", port))
	metrics := newScraper(t, e.c)
	warned := func() float64 {
		return counter(metrics.scrape(webhook), "windows_aware_admission_warnings_total", map[string]string{"outcome": "warned"})
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
	nsObj.Labels[publish.LabelEnforce] = "true"
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
	if err == nil || !strings.Contains(out, publish.LabelEnforce+"=true") || !strings.Contains(out, "add a Windows Server 2016 pool") {
		t.Errorf("the ltsc2016 Deployment was not refused where the namespace enforces (err %v)", err)
	}
	// A pod of the profile there: published by /mutate, without
	// warnings, and refused by the enforcing validating webhook.
	if out, err := kubectlApply(profilePod("enforced-pod")); err == nil || !strings.Contains(out, publish.LabelEnforce+"=true") || strings.Contains(out, "Warning: windows-aware:") {
		t.Errorf("an ltsc2016 pod of the profile where the namespace enforces: want a refusal and no warning (err %v):\n%s", err, out)
	}
	if out, err := kubectlApply(strings.ReplaceAll(strings.ReplaceAll(legacy("runs"), "windowsservercore-ltsc2016", "windowsservercore-ltsc2022"), "legacy", "runs")); err != nil {
		t.Errorf("a Deployment that runs was refused: %v\n%s", err, out)
	}
}

// registerWarningsWebhook registers the chart's warnings webhooks for
// namespace ns alone, calling base's /warnings and /warnings/enforce with
// caFile's CA. It is deleted when the test ends.
func (e *env) registerWarningsWebhook(ns, caFile, base string) {
	e.t.Helper()
	caPEM, err := os.ReadFile(caFile)
	if err != nil {
		e.t.Fatal(err)
	}
	cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "warnings-" + ns}}
	for _, enforce := range []bool{false, true} {
		name, path, op := "warnings.windows-aware.x-k8s.io", "/warnings", metav1.LabelSelectorOpNotIn
		if enforce {
			name, path, op = "enforce.warnings.windows-aware.x-k8s.io", "/warnings/enforce", metav1.LabelSelectorOpIn
		}
		url := base + path
		cfg.Webhooks = append(cfg.Webhooks, admissionregistrationv1.ValidatingWebhook{
			Name:                    name,
			AdmissionReviewVersions: []string{"v1"},
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: caPEM},
			Rules: []admissionregistrationv1.RuleWithOperations{
				{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}},
				{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
					Rule: admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments", "statefulsets", "daemonsets", "replicasets"}}},
				{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
					Rule: admissionregistrationv1.Rule{APIGroups: []string{"batch"}, APIVersions: []string{"v1"}, Resources: []string{"jobs", "cronjobs"}}},
			},
			NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: publish.LabelEnforce, Operator: op, Values: []string{"true"}},
				{Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpIn, Values: []string{ns}},
			}},
			MatchConditions: warningsMatchConditions(enforce),
			FailurePolicy:   ptr.To(admissionregistrationv1.Ignore),
			SideEffects:     ptr.To(admissionregistrationv1.SideEffectClassNone),
			TimeoutSeconds:  ptr.To[int32](5),
		})
	}
	client := e.client.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	if _, err := client.Create(e.ctx, cfg, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = client.Delete(e.ctx, cfg.Name, metav1.DeleteOptions{}) })
}

// warningsMatchConditions are the chart's conditions of the warnings'
// validating webhook (charts/windows-aware-scheduler/templates/
// warnings-webhook.yaml): not a controller's pod, not a bound one, and,
// outside namespaces that enforce, not a pod of the profile, whose
// warnings the publish webhook's /mutate/warnings answers.
func warningsMatchConditions(enforce bool) []admissionregistrationv1.MatchCondition {
	conds := []admissionregistrationv1.MatchCondition{
		{Name: "not-controlled", Expression: "request.resource.resource != 'pods' || !has(object.metadata.ownerReferences) || !object.metadata.ownerReferences.exists(r, has(r.controller) && r.controller)"},
		{Name: "not-bound", Expression: "request.resource.resource != 'pods' || !has(object.spec.nodeName) || object.spec.nodeName == ''"},
	}
	if !enforce {
		conds = append(conds, admissionregistrationv1.MatchCondition{Name: "not-warned-by-publish",
			Expression: "request.resource.resource != 'pods' || object.spec.schedulerName != '" + windowsAware + "' || (has(object.metadata.labels) && 'windows-aware.x-k8s.io/publish' in object.metadata.labels && object.metadata.labels['windows-aware.x-k8s.io/publish'] == 'false')"})
	}
	return conds
}

// registerPublishWithWarnings registers the chart's publish webhook as it
// is with warnings on, for namespace ns alone: the profile's pods go to
// base's /mutate/warnings, or to /mutate where the namespace enforces.
func (e *env) registerPublishWithWarnings(ns, caFile, base string) {
	e.t.Helper()
	caPEM, err := os.ReadFile(caFile)
	if err != nil {
		e.t.Fatal(err)
	}
	cfg := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "publish-warnings-" + ns}}
	for _, enforce := range []bool{false, true} {
		name, path, op := "publish.windows-aware.x-k8s.io", "/mutate/warnings", metav1.LabelSelectorOpNotIn
		if enforce {
			name, path, op = "enforced.publish.windows-aware.x-k8s.io", "/mutate", metav1.LabelSelectorOpIn
		}
		url := base + path
		cfg.Webhooks = append(cfg.Webhooks, admissionregistrationv1.MutatingWebhook{
			Name:                    name,
			AdmissionReviewVersions: []string{"v1"},
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: caPEM},
			Rules: []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}},
			NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: publish.LabelEnforce, Operator: op, Values: []string{"true"}},
				{Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpIn, Values: []string{ns}},
			}},
			MatchConditions: []admissionregistrationv1.MatchCondition{
				{Name: "windows-aware-profile", Expression: "object.spec.schedulerName == '" + windowsAware + "'"},
				{Name: "not-opted-out", Expression: "!has(object.metadata.labels) || !('windows-aware.x-k8s.io/publish' in object.metadata.labels) || object.metadata.labels['windows-aware.x-k8s.io/publish'] != 'false'"},
				{Name: "not-bound", Expression: "!has(object.spec.nodeName) || object.spec.nodeName == ''"},
			},
			FailurePolicy:      ptr.To(admissionregistrationv1.Ignore),
			SideEffects:        ptr.To(admissionregistrationv1.SideEffectClassNone),
			TimeoutSeconds:     ptr.To[int32](5),
			ReinvocationPolicy: ptr.To(admissionregistrationv1.NeverReinvocationPolicy),
		})
	}
	client := e.client.AdmissionregistrationV1().MutatingWebhookConfigurations()
	if _, err := client.Create(e.ctx, cfg, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = client.Delete(e.ctx, cfg.Name, metav1.DeleteOptions{}) })
}
