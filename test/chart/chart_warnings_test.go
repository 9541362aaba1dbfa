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

package chart

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

// warningsName is the warnings' configuration and RBAC objects' name for
// the release besideRelease.
const warningsName = publishName + "-warnings"

// TestChartWarnings: warnings.enabled renders the validating webhook
// (failurePolicy Ignore; the enforcing entry only for namespaces labelled
// windows-aware.x-k8s.io/enforce=true, the other for all others), the RBAC
// on nodes and NodePools bound to the webhook's identity, and starts the
// webhook with --warnings and a token; off, none of it.
func TestChartWarnings(t *testing.T) {
	off := renderChart(t, besideNamespace, `publish: {enabled: true}`)
	for _, k := range off.keys() {
		if strings.Contains(k, "warnings") {
			t.Errorf("warnings off renders %s", k)
		}
	}
	if args := publishArgs(t, off); slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--warnings") }) {
		t.Errorf("warnings off starts the webhook with %q", args)
	}

	for _, tc := range []struct {
		name, values  string
		selfManaged   bool
		wantTimeout   int32
		wantCertInjec bool
	}{
		{name: "self-managed TLS", values: `{publish: {enabled: true}, warnings: {enabled: true}}`, selfManaged: true, wantTimeout: 2},
		{name: "cert-manager, metrics open, a longer timeout", values: `{publish: {enabled: true, metricsAuth: none, certManager: {enabled: true}}, warnings: {enabled: true, timeoutSeconds: 5}}`,
			wantTimeout: 5, wantCertInjec: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := renderChart(t, besideNamespace, tc.values)
			cfg := get[*admissionregistrationv1.ValidatingWebhookConfiguration](t, m, "ValidatingWebhookConfiguration", "", warningsName)
			if got := cfg.Annotations["cert-manager.io/inject-ca-from"] != ""; got != tc.wantCertInjec {
				t.Errorf("cert-manager CA injection %v, want %v", got, tc.wantCertInjec)
			}
			if len(cfg.Webhooks) != 2 {
				t.Fatalf("%d webhooks, want the warning one and the enforcing one", len(cfg.Webhooks))
			}
			for i, want := range []struct{ path, op string }{{"/warnings", "NotIn"}, {"/warnings/enforce", "In"}} {
				w := cfg.Webhooks[i]
				if w.ClientConfig.Service == nil || *w.ClientConfig.Service.Path != want.path || w.ClientConfig.Service.Name != publishName || len(w.ClientConfig.CABundle) != 0 {
					t.Errorf("webhook %s calls %+v, want the publish Service at %s, no caBundle", w.Name, w.ClientConfig, want.path)
				}
				if w.FailurePolicy == nil || *w.FailurePolicy != admissionregistrationv1.Ignore {
					t.Errorf("webhook %s failurePolicy %v, want Ignore", w.Name, w.FailurePolicy)
				}
				if w.TimeoutSeconds == nil || *w.TimeoutSeconds != tc.wantTimeout {
					t.Errorf("webhook %s timeout %v, want %d", w.Name, w.TimeoutSeconds, tc.wantTimeout)
				}
				sel := w.NamespaceSelector
				if sel == nil || len(sel.MatchExpressions) != 1 || sel.MatchExpressions[0].Key != "windows-aware.x-k8s.io/enforce" ||
					string(sel.MatchExpressions[0].Operator) != want.op || !slices.Equal(sel.MatchExpressions[0].Values, []string{"true"}) {
					t.Errorf("webhook %s namespaceSelector %+v, want enforce %s [true]", w.Name, sel, want.op)
				}
				var resources []string
				for _, r := range w.Rules {
					resources = append(resources, r.Resources...)
				}
				slices.Sort(resources)
				if want := []string{"cronjobs", "daemonsets", "deployments", "jobs", "pods", "replicasets", "statefulsets"}; !slices.Equal(resources, want) {
					t.Errorf("webhook %s rules cover %q, want %q", w.Name, resources, want)
				}
			}

			role := get[*rbacv1.ClusterRole](t, m, "ClusterRole", "", warningsName)
			atoms := ruleAtoms(role.Rules)
			for _, want := range []string{"list /nodes", "watch /nodes", "list karpenter.sh/nodepools", "watch karpenter.sh/nodepools"} {
				if !slices.Contains(atoms, want) {
					t.Errorf("ClusterRole %s grants %q, not %s", warningsName, atoms, want)
				}
			}
			patches := slices.ContainsFunc(atoms, func(a string) bool { return strings.Contains(a, "validatingwebhookconfigurations") })
			if patches != tc.selfManaged {
				t.Errorf("ClusterRole grants the configuration's CA bundle: %v, want %v (%q)", patches, tc.selfManaged, atoms)
			}
			binding := get[*rbacv1.ClusterRoleBinding](t, m, "ClusterRoleBinding", "", warningsName)
			if len(binding.Subjects) != 1 || binding.Subjects[0].Name != publishName || binding.RoleRef.Name != warningsName {
				t.Errorf("binding %+v, want %s bound to the webhook's ServiceAccount", binding, warningsName)
			}

			d := get[*appsv1.Deployment](t, m, "Deployment", besideNamespace, publishName)
			args := publishArgs(t, m)
			if !slices.Contains(args, "--warnings") {
				t.Errorf("webhook args %q lack --warnings", args)
			}
			wantCA := "--warnings-webhook-configuration=" + warningsName
			if slices.Contains(args, wantCA) != tc.selfManaged {
				t.Errorf("webhook args %q: %s only with self-managed TLS", args, wantCA)
			}
			if tok := d.Spec.Template.Spec.AutomountServiceAccountToken; tok == nil || !*tok {
				t.Errorf("the webhook lists nodes but mounts no token")
			}
		})
	}
}

func publishArgs(t *testing.T, m manifestSet) []string {
	t.Helper()
	d := get[*appsv1.Deployment](t, m, "Deployment", besideNamespace, publishName)
	return d.Spec.Template.Spec.Containers[0].Command
}

// TestChartWarningsRejectsBadValues: the warnings need the publish
// webhook's pods, and a timeout the API allows.
func TestChartWarningsRejectsBadValues(t *testing.T) {
	for _, tc := range []struct {
		name, values, want string
	}{
		{name: "without the publish webhook", values: `warnings: {enabled: true}`, want: "set publish.enabled"},
		{name: "no timeout", values: `{publish: {enabled: true}, warnings: {enabled: true, timeoutSeconds: 0}}`, want: "/warnings/timeoutSeconds"},
		{name: "misspelt value", values: `warnings: {enable: true}`, want: "enable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := helmTemplate(t, besideNamespace, tc.values)
			if err == nil {
				t.Fatal("helm rendered it")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error does not name %s: %v", tc.want, err)
			}
		})
	}
}

// TestChartWarningsRouting: with warnings on, a pod of the profile costs
// one review. The publish webhook's entry for namespaces that do not
// enforce calls /mutate/warnings, a second entry for those that do calls
// /mutate, both with the publish entry's conditions; the warnings'
// validating entry for namespaces that do not enforce leaves out exactly
// the pods the publish entry takes (the profile's, not opted out of
// publishing), under the release's schedulerName. With warnings off, the
// one publish entry calls /mutate everywhere.
func TestChartWarningsRouting(t *testing.T) {
	publishEntries := func(m manifestSet) []admissionregistrationv1.MutatingWebhook {
		var out []admissionregistrationv1.MutatingWebhook
		for _, w := range get[*admissionregistrationv1.MutatingWebhookConfiguration](t, m, "MutatingWebhookConfiguration", "", publishWebhook).Webhooks {
			if strings.HasSuffix(w.Name, "publish.windows-aware.x-k8s.io") {
				out = append(out, w)
			}
		}
		return out
	}
	off := publishEntries(renderChart(t, besideNamespace, `{schedulerName: win-sched, publish: {enabled: true}}`))
	if len(off) != 1 || *off[0].ClientConfig.Service.Path != "/mutate" || off[0].NamespaceSelector != nil && len(off[0].NamespaceSelector.MatchExpressions) > 0 {
		t.Fatalf("warnings off: publish entries %+v, want one at /mutate for every namespace", off)
	}

	m := renderChart(t, besideNamespace, `{schedulerName: win-sched, publish: {enabled: true}, warnings: {enabled: true}}`)
	on := publishEntries(m)
	if len(on) != 2 {
		t.Fatalf("warnings on: %d publish entries, want 2", len(on))
	}
	for i, want := range []struct{ name, path, op string }{
		{"publish.windows-aware.x-k8s.io", "/mutate/warnings", "NotIn"},
		{"enforced.publish.windows-aware.x-k8s.io", "/mutate", "In"},
	} {
		w := on[i]
		if w.Name != want.name || *w.ClientConfig.Service.Path != want.path {
			t.Errorf("entry %d is %s at %s, want %s at %s", i, w.Name, *w.ClientConfig.Service.Path, want.name, want.path)
		}
		sel := w.NamespaceSelector
		if sel == nil || len(sel.MatchExpressions) != 1 || sel.MatchExpressions[0].Key != "windows-aware.x-k8s.io/enforce" || string(sel.MatchExpressions[0].Operator) != want.op {
			t.Errorf("entry %s namespaceSelector %+v, want enforce %s [true]", w.Name, sel, want.op)
		}
		if diff := cmp.Diff(off[0].MatchConditions, w.MatchConditions); diff != "" {
			t.Errorf("entry %s conditions differ from the publish entry's without warnings (-off +on):\n%s", w.Name, diff)
		}
		if diff := cmp.Diff(off[0].Rules, w.Rules); diff != "" {
			t.Errorf("entry %s rules differ from the publish entry's without warnings (-off +on):\n%s", w.Name, diff)
		}
	}

	cfg := get[*admissionregistrationv1.ValidatingWebhookConfiguration](t, m, "ValidatingWebhookConfiguration", "", warningsName)
	leaves := func(w admissionregistrationv1.ValidatingWebhook) string {
		for _, c := range w.MatchConditions {
			if c.Name == "not-warned-by-publish" {
				return c.Expression
			}
		}
		return ""
	}
	expr := leaves(cfg.Webhooks[0])
	for _, want := range []string{"request.resource.resource != 'pods'", "object.spec.schedulerName != 'win-sched'", "object.metadata.labels['windows-aware.x-k8s.io/publish'] == 'false'"} {
		if !strings.Contains(expr, want) {
			t.Errorf("the warnings' entry %s leaves the publish webhook's pods out by %q, which lacks %q", cfg.Webhooks[0].Name, expr, want)
		}
	}
	if expr := leaves(cfg.Webhooks[1]); expr != "" {
		t.Errorf("the enforcing entry leaves pods of the profile out (%q): where the namespace enforces, it judges them all", expr)
	}
}
