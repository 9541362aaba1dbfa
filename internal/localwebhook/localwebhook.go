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

// Package localwebhook runs this project's admission webhook, bin/admission,
// on 127.0.0.1 with a serving certificate of a CA of its own, and gives
// the webhook configurations that register it with an API server: the
// shipped ones (manifests/publish) and the chart's warnings webhooks, with
// each webhook pointed by URL at the process instead of at the chart's
// Service, and trusting that CA. The integration tests and make demo run
// the webhook alike through it, so that what the demo shows is what the
// tests check.
package localwebhook

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"slices"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/windows-aware/windows-aware/internal/controlplane"
	"github.com/windows-aware/windows-aware/internal/localproc"
	"github.com/windows-aware/windows-aware/internal/manifest"
	"github.com/windows-aware/windows-aware/internal/pki"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
	"github.com/windows-aware/windows-aware/pkg/workloadkind"
)

// Options say how to run the webhook beyond serving on loopback.
type Options struct {
	// Name names the process: its log is the cluster's LogDir/<Name>.log.
	Name string
	// PKIDir receives the CA and the serving certificate.
	PKIDir string
	// Args are the flags beyond those of serving: --config, --profile,
	// --kubeconfig, --warnings, --metrics-auth and the like.
	Args []string
}

// Webhook is a bin/admission process serving on 127.0.0.1.
type Webhook struct {
	*localproc.Process
	// URL is https://127.0.0.1:<port>; the webhook's paths are under it.
	URL string
	// CAFile is the CA that issued the serving certificate, and CABundle
	// its PEM, as a webhook configuration's caBundle holds it.
	CAFile   string
	CABundle []byte
}

// Start runs bin/admission as part of cluster c (stopped with it; with
// c's PIDDir, recorded there for localproc.StopRecorded) and waits until
// its /healthz answers.
func Start(ctx context.Context, c *controlplane.Cluster, o Options) (*Webhook, error) {
	bins, err := controlplane.FindBinaries("", "", controlplane.Admission)
	if err != nil {
		return nil, err
	}
	ca, err := pki.NewCA(o.PKIDir, "windows-aware-admission-loopback-ca")
	if err != nil {
		return nil, err
	}
	certFile, keyFile, err := ca.IssueLoopbackServing("serving", "windows-aware-admission")
	if err != nil {
		return nil, err
	}
	caPEM, err := os.ReadFile(ca.CertFile)
	if err != nil {
		return nil, err
	}
	port, err := localproc.FreePort()
	if err != nil {
		return nil, err
	}
	base := fmt.Sprintf("https://127.0.0.1:%d", port)
	p, err := c.Run(ctx, o.Name, bins.Admission, append([]string{
		"--bind-address=127.0.0.1", fmt.Sprintf("--port=%d", port),
		"--tls-cert-file=" + certFile, "--tls-private-key-file=" + keyFile,
		// No Service sends it requests: nothing to drain on SIGTERM.
		"--shutdown-delay=0s", "-v=2",
	}, o.Args...), base+"/healthz")
	if err != nil {
		return nil, err
	}
	return &Webhook{Process: p, URL: base, CAFile: ca.CertFile, CABundle: caPEM}, nil
}

// ReadMutating reads the MutatingWebhookConfiguration of a shipped file
// (manifests/publish/mutatingwebhookconfiguration.yaml, or that of
// manifests/publish/templates or cluster-wide), which the chart renders
// alike with warnings.enabled off. With warnings, its publish webhook is
// routed as the chart routes it with warnings.enabled on
// (RouteWarnings). PointMutating then points every webhook at base.
func ReadMutating(file, base string, caBundle []byte, warnings bool) (*admissionregistrationv1.MutatingWebhookConfiguration, error) {
	objs, err := manifest.ReadFile(file)
	if err != nil {
		return nil, err
	}
	if len(objs) != 1 {
		return nil, fmt.Errorf("%s: %d objects, want one MutatingWebhookConfiguration", file, len(objs))
	}
	cfg, ok := objs[0].(*admissionregistrationv1.MutatingWebhookConfiguration)
	if !ok {
		return nil, fmt.Errorf("%s: a %T, want a MutatingWebhookConfiguration", file, objs[0])
	}
	if warnings {
		if err := RouteWarnings(cfg); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
	}
	return cfg, PointMutating(cfg, base, caBundle)
}

// The publish webhook's entries, and their paths, by the chart's names.
const (
	PublishWebhook         = "publish.windows-aware.x-k8s.io"
	EnforcedPublishWebhook = "enforced.publish.windows-aware.x-k8s.io"
	publishPath            = "/mutate"
	publishWarningsPath    = "/mutate/warnings"
)

// RouteWarnings does to cfg, whose webhooks name the paths of a Service,
// what warnings.enabled does to the chart's: the publish webhook's entry
// calls /mutate/warnings, which answers the warnings of the profile's
// pods in the same review, in namespaces that do not enforce, and a
// second entry, alike but for its name, calls /mutate in those that do
// (the warnings' validating webhook refuses there).
func RouteWarnings(cfg *admissionregistrationv1.MutatingWebhookConfiguration) error {
	for i, w := range cfg.Webhooks {
		if w.Name != PublishWebhook {
			continue
		}
		if w.ClientConfig.Service == nil || w.ClientConfig.Service.Path == nil || *w.ClientConfig.Service.Path != publishPath {
			return fmt.Errorf("webhook %s calls %+v, want a Service's %s", w.Name, w.ClientConfig, publishPath)
		}
		warned, enforced := *w.DeepCopy(), *w.DeepCopy()
		warned.ClientConfig.Service.Path = ptr.To(publishWarningsPath)
		warned.NamespaceSelector = enforcing(metav1.LabelSelectorOpNotIn)
		enforced.Name = EnforcedPublishWebhook
		enforced.NamespaceSelector = enforcing(metav1.LabelSelectorOpIn)
		cfg.Webhooks = append(cfg.Webhooks[:i], append([]admissionregistrationv1.MutatingWebhook{warned, enforced}, cfg.Webhooks[i+1:]...)...)
		return nil
	}
	return fmt.Errorf("no webhook %s to route", PublishWebhook)
}

// enforcing selects the namespaces labelled wellknown.LabelEnforce=true (op
// In), or the others (NotIn).
func enforcing(op metav1.LabelSelectorOperator) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: wellknown.LabelEnforce, Operator: op, Values: []string{"true"}}}}
}

// PointMutating points every webhook of cfg, which names the path of a
// Service, at that path under base (https://127.0.0.1:<port>), trusting
// caBundle: what the chart's Service and the webhook's self-managed CA
// give a cluster, given by URL.
func PointMutating(cfg *admissionregistrationv1.MutatingWebhookConfiguration, base string, caBundle []byte) error {
	for i := range cfg.Webhooks {
		if err := point(&cfg.Webhooks[i].ClientConfig, cfg.Webhooks[i].Name, base, caBundle); err != nil {
			return err
		}
	}
	return nil
}

// PointValidating is PointMutating for a ValidatingWebhookConfiguration.
func PointValidating(cfg *admissionregistrationv1.ValidatingWebhookConfiguration, base string, caBundle []byte) error {
	for i := range cfg.Webhooks {
		if err := point(&cfg.Webhooks[i].ClientConfig, cfg.Webhooks[i].Name, base, caBundle); err != nil {
			return err
		}
	}
	return nil
}

func point(cc *admissionregistrationv1.WebhookClientConfig, name, base string, caBundle []byte) error {
	if cc.Service == nil || cc.Service.Path == nil {
		return fmt.Errorf("webhook %s names no Service path to call", name)
	}
	u, err := url.Parse(base)
	if err != nil {
		return err
	}
	u.Path = *cc.Service.Path
	hook := u.String()
	*cc = admissionregistrationv1.WebhookClientConfig{URL: &hook, CABundle: caBundle}
	return nil
}

// Warnings is the ValidatingWebhookConfiguration named name that the
// chart renders for warnings at apply time
// (charts/windows-aware-scheduler/templates/warnings-webhook.yaml, with
// schedulerName profile and warnings.timeoutSeconds timeoutSeconds),
// pointed at base, trusting caBundle. No file of manifests/ holds it, so
// it is written out here; TestWarningsAsTheChartRendersThem holds it to
// the chart.
func Warnings(name, profile, base string, caBundle []byte, timeoutSeconds int32) *admissionregistrationv1.ValidatingWebhookConfiguration {
	cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name}}
	for _, enforce := range []bool{false, true} {
		// The second webhook refuses, where a namespace asks for it, what
		// the first only warns about.
		hook, path, op := "warnings.windows-aware.x-k8s.io", "/warnings", metav1.LabelSelectorOpNotIn
		if enforce {
			hook, path, op = "enforce.warnings.windows-aware.x-k8s.io", "/warnings/enforce", metav1.LabelSelectorOpIn
		}
		conditions := []admissionregistrationv1.MatchCondition{
			{Name: "not-controlled", Expression: "request.resource.resource != 'pods' || !has(object.metadata.ownerReferences) || !object.metadata.ownerReferences.exists(r, has(r.controller) && r.controller)"},
			{Name: "not-bound", Expression: "request.resource.resource != 'pods' || !has(object.spec.nodeName) || object.spec.nodeName == ''"},
		}
		if !enforce {
			// The profile's pods that the publish webhook takes get their
			// warnings from its /mutate/warnings (RouteWarnings): one
			// review a pod.
			conditions = append(conditions, admissionregistrationv1.MatchCondition{Name: "not-warned-by-publish",
				Expression: "request.resource.resource != 'pods' || object.spec.schedulerName != '" + profile + "' || (has(object.metadata.labels) && '" + wellknown.LabelPublish + "' in object.metadata.labels && object.metadata.labels['" + wellknown.LabelPublish + "'] == 'false')"})
		}
		u := base + path
		cfg.Webhooks = append(cfg.Webhooks, admissionregistrationv1.ValidatingWebhook{
			Name:                    hook,
			AdmissionReviewVersions: []string{"v1"},
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &u, CABundle: caBundle},
			Rules:                   warnedRules(),
			MatchPolicy:             ptr.To(admissionregistrationv1.Equivalent),
			NamespaceSelector:       enforcing(op),
			MatchConditions:         conditions,
			// Ignore, as the chart has it whatever its values: while the
			// webhook is down or slow, objects are created without warnings.
			FailurePolicy:  ptr.To(admissionregistrationv1.Ignore),
			TimeoutSeconds: ptr.To(timeoutSeconds),
			SideEffects:    ptr.To(admissionregistrationv1.SideEffectClassNone),
		})
	}
	return cfg
}

// OnlyNamespaces narrows sel (nil: every namespace) to the namespaces
// named: tests register a webhook for theirs alone.
func OnlyNamespaces(sel *metav1.LabelSelector, namespaces ...string) *metav1.LabelSelector {
	if sel == nil {
		sel = &metav1.LabelSelector{}
	}
	sel.MatchExpressions = append(sel.MatchExpressions,
		metav1.LabelSelectorRequirement{Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpIn, Values: namespaces})
	return sel
}

// warnedRules are the rules of the warnings webhooks: the resource of each
// kind of workloadkind's table the warnings read, a rule for each API
// group and version, in the table's order, as the chart has them. A pod
// is judged at its creation alone (an update cannot change what it runs
// on); a workload at a change of its template too.
func warnedRules() []admissionregistrationv1.RuleWithOperations {
	var rules []admissionregistrationv1.RuleWithOperations
	for _, k := range workloadkind.All {
		if !k.Warnings {
			continue
		}
		ops := []admissionregistrationv1.OperationType{admissionregistrationv1.Create}
		if k != workloadkind.Pod {
			ops = append(ops, admissionregistrationv1.Update)
		}
		if n := len(rules); n > 0 && rules[n-1].APIGroups[0] == k.Resource.Group && rules[n-1].APIVersions[0] == k.Resource.Version &&
			slices.Equal(rules[n-1].Operations, ops) {
			rules[n-1].Resources = append(rules[n-1].Resources, k.Resource.Resource)
			continue
		}
		rules = append(rules, admissionregistrationv1.RuleWithOperations{
			Operations: ops,
			Rule: admissionregistrationv1.Rule{
				APIGroups: []string{k.Resource.Group}, APIVersions: []string{k.Resource.Version}, Resources: []string{k.Resource.Resource},
				Scope: ptr.To(admissionregistrationv1.NamespacedScope),
			},
		})
	}
	return rules
}
