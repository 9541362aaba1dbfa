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
	"fmt"
	neturl "net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/windows-aware/windows-aware/internal/controlplane"
	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/localproc"
	"github.com/windows-aware/windows-aware/internal/localwebhook"
	"github.com/windows-aware/windows-aware/internal/oracle"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// TestPublishMode runs bin/admission on loopback with TLS and registers
// it with the real kube-apiserver through the shipped
// MutatingWebhookConfiguration (its matchConditions included), pointed at
// the process and limited to the test's namespace:
//
//   - a selector-less ltsc2019 pod is stored, as created, with the OS
//     selector, the build affinity, the OS tolerations and the record, and
//     is placed on the 2019 node;
//   - a pod whose own selector conflicts, and one that opts out, are
//     stored untouched;
//   - with the webhook stopped, pods are still created (failurePolicy
//     Ignore), unpublished, and the scheduler still places them right.
func TestPublishMode(t *testing.T) {
	e := requireCluster(t)
	ns := e.namespace()
	e.createNodes(
		linuxNode("pub-linux"),
		windowsNode("pub-win-2019", oracle.Build2019, fixture.WindowsTaint),
		windowsNode("pub-win-2022", oracle.Build2022, fixture.WindowsTaint),
	)
	webhook := e.startPublishWebhook(ns, webhookOptions{})

	// A selector-less ltsc2019 pod, published as it is created.
	created := e.createPod(ns, newPod("iis", windowsAware, "mcr.microsoft.com/windows/servercore:ltsc2019"))
	for _, p := range []*v1.Pod{created, e.getPod(ns, "iis")} {
		if got := p.Spec.NodeSelector[v1.LabelOSStable]; got != "windows" {
			t.Errorf("nodeSelector %v, want kubernetes.io/os=windows", p.Spec.NodeSelector)
		}
		if got := requiredBuilds(p); !slices.Equal(got, []string{oracle.Build2019}) {
			t.Errorf("required build affinity %v, want [%s]", got, oracle.Build2019)
		}
		if !slices.ContainsFunc(p.Spec.Tolerations, func(tol v1.Toleration) bool {
			return tol.ToleratesTaint(klog.Background(), &fixture.WindowsTaint, false)
		}) {
			t.Errorf("tolerations %v do not tolerate %v", p.Spec.Tolerations, fixture.WindowsTaint)
		}
		rec, err := wellknown.ParseRecord(p.Annotations[wellknown.AnnotationPublished])
		if err != nil || rec.Source != "tag" || rec.OS != "windows" {
			t.Errorf("record %+v (%v), want one from the tag that wrote the OS", rec, err)
		}
	}
	if node := e.waitScheduled(ns, "iis", scheduleTimeout); buildOf(node) != oracle.Build2019 {
		t.Errorf("the published ltsc2019 pod landed on %s (%s %s)", node.Name, osOf(node), buildOf(node))
	}

	// A pod whose own selector conflicts, and one that opts out: untouched.
	conflicting := newPod("conflicting", windowsAware, "mcr.microsoft.com/windows/servercore:ltsc2019")
	conflicting.Spec.NodeSelector = map[string]string{v1.LabelOSStable: "linux"}
	optedOut := newPod("opted-out", windowsAware, "mcr.microsoft.com/windows/servercore:ltsc2019")
	optedOut.Labels[wellknown.LabelPublish] = "false"
	for _, p := range []*v1.Pod{conflicting, optedOut} {
		got := e.createPod(ns, p.DeepCopy())
		if _, ok := got.Annotations[wellknown.AnnotationPublished]; ok || !equalScheduling(p, got) {
			t.Errorf("pod %s was changed: nodeSelector %v, affinity %v, tolerations %v, annotations %v",
				p.Name, got.Spec.NodeSelector, got.Spec.Affinity, got.Spec.Tolerations, got.Annotations)
		}
	}

	// The webhook down: pods are created unpublished and placed right.
	webhook.Stop(10 * time.Second)
	unpublished := e.createPod(ns, newPod("nano", windowsAware, "mcr.microsoft.com/windows/nanoserver:ltsc2022"))
	if _, ok := unpublished.Annotations[wellknown.AnnotationPublished]; ok || unpublished.Spec.NodeSelector != nil {
		t.Errorf("with the webhook down the pod was still published: %v %v", unpublished.Spec.NodeSelector, unpublished.Annotations)
	}
	if node := e.waitScheduled(ns, "nano", scheduleTimeout); buildOf(node) != oracle.Build2022 {
		t.Errorf("the unpublished ltsc2022 pod landed on %s (%s %s)", node.Name, osOf(node), buildOf(node))
	}
}

// webhookOptions are how a test runs bin/admission beyond the defaults
// (the windows-aware profile of the cluster's scheduler configuration).
type webhookOptions struct {
	profile, config string
	args            []string // more flags
	// alsoNamespaces are more namespaces whose pods the webhook is
	// registered for, besides the one it is started for.
	alsoNamespaces []string
}

// startPublishWebhook runs bin/admission on loopback, serving a
// certificate of a CA of its own, and registers it for the pods of
// namespace ns. The process is stopped when the test ends (its log's end
// printed if the test failed).
func (e *env) startPublishWebhook(ns string, opts webhookOptions) *localproc.Process {
	e.t.Helper()
	if opts.profile == "" {
		opts.profile = windowsAware
	}
	if opts.config == "" {
		opts.config = e.c.SchedulerConfigFile
	}
	webhook, err := localwebhook.Start(e.ctx, e.c, localwebhook.Options{
		Name:   "admission-" + ns,
		PKIDir: filepath.Join(e.c.Dir, "publish-pki-"+ns),
		Args: append([]string{
			"--config=" + opts.config, "--profile=" + opts.profile,
			// /metrics is authorized by the API server (--metrics-auth=delegated).
			"--kubeconfig=" + e.c.Kubeconfig,
		}, opts.args...),
	})
	if err != nil {
		e.t.Fatalf("starting the webhook: %v", err)
	}
	e.t.Cleanup(func() {
		if e.t.Failed() {
			e.t.Logf("admission log ends with:\n%s", webhook.Tail(6000))
		}
		webhook.Stop(10 * time.Second)
	})
	e.registerPublishWebhookFor(ns, opts.profile, webhook.CAFile, webhook.URL+"/mutate", opts.alsoNamespaces...)
	return webhook.Process
}

// registerPublishWebhook registers the shipped MutatingWebhookConfiguration
// for the pods of namespace ns alone, calling url with caFile's CA, and
// waits until the API server calls it. It is deleted when the test ends.
func (e *env) registerPublishWebhook(ns, caFile, url string) {
	e.t.Helper()
	e.registerPublishWebhookFor(ns, windowsAware, caFile, url)
}

// registerPublishWebhookFor is registerPublishWebhook for the pods of the
// profile (schedulerName) profile, in namespace ns and those of also.
func (e *env) registerPublishWebhookFor(ns, profile, caFile, url string, also ...string) {
	e.t.Helper()
	root, err := controlplane.RepoRoot()
	if err != nil {
		e.t.Fatal(err)
	}
	caPEM, err := os.ReadFile(caFile)
	if err != nil {
		e.t.Fatal(err)
	}
	base, err := neturl.Parse(url)
	if err != nil {
		e.t.Fatal(err)
	}
	base.Path = ""
	// Each webhook at its own path of the process.
	cfg, err := localwebhook.ReadMutating(filepath.Join(root, "manifests", "publish", "mutatingwebhookconfiguration.yaml"), base.String(), caPEM, false)
	if err != nil {
		e.t.Fatal(err)
	}
	cfg.Name += "-" + ns
	namespaces := append([]string{ns}, also...)
	for i := range cfg.Webhooks {
		w := &cfg.Webhooks[i]
		// For the test's namespaces alone, with what else the shipped
		// selector asks (the opt-in label).
		w.NamespaceSelector = localwebhook.OnlyNamespaces(w.NamespaceSelector, namespaces...)
		for j := range w.MatchConditions {
			c := &w.MatchConditions[j]
			c.Expression = strings.ReplaceAll(c.Expression, "'"+windowsAware+"'", "'"+profile+"'")
		}
	}
	client := e.client.AdmissionregistrationV1().MutatingWebhookConfigurations()
	if _, err := client.Create(e.ctx, cfg, metav1.CreateOptions{}); err != nil {
		e.t.Fatalf("registering the webhook: %v", err)
	}
	e.t.Cleanup(func() {
		// Gone already when the test deleted it (admission ungate-all).
		if err := client.Delete(e.ctx, cfg.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			e.t.Errorf("deleting the webhook configuration: %v", err)
		}
	})
	e.waitWebhookCalled(ns, profile)
}

// waitWebhookCalled waits until the API server calls the publish webhook
// for pods of profile in namespace ns. It picks configurations up from an
// informer: probe with dry-run creates (the webhook has no side effects)
// until one comes back published.
func (e *env) waitWebhookCalled(ns, profile string) {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		probe := newPod("probe", profile, "mcr.microsoft.com/windows/servercore:ltsc2019")
		got, err := e.client.CoreV1().Pods(ns).Create(e.ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil && got.Annotations[wellknown.AnnotationPublished] != "" {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("the API server did not call the webhook within 30s (last error: %v)", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// requiredBuilds lists the values of the build In expressions of the
// pod's required node affinity terms.
func requiredBuilds(p *v1.Pod) []string {
	var out []string
	if p.Spec.Affinity == nil || p.Spec.Affinity.NodeAffinity == nil || p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return nil
	}
	for _, term := range p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, expr := range term.MatchExpressions {
			if expr.Key == v1.LabelWindowsBuild && expr.Operator == v1.NodeSelectorOpIn {
				out = append(out, expr.Values...)
			}
		}
	}
	return out
}

// equalScheduling reports whether the stored pod kept the node selector,
// affinity and tolerations the test created it with (the API server adds
// its default not-ready and unreachable tolerations).
func equalScheduling(sent, stored *v1.Pod) bool {
	tolerations := slices.DeleteFunc(slices.Clone(stored.Spec.Tolerations), func(t v1.Toleration) bool {
		return t.Key == v1.TaintNodeNotReady || t.Key == v1.TaintNodeUnreachable
	})
	return fmt.Sprint(sent.Spec.NodeSelector) == fmt.Sprint(stored.Spec.NodeSelector) &&
		fmt.Sprint(sent.Spec.Affinity) == fmt.Sprint(stored.Spec.Affinity) &&
		len(tolerations) == len(sent.Spec.Tolerations)
}
