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
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

// publishCABundlePolicy is the admission policy that holds the webhook's
// identity to the caBundle of its own configuration.
const publishCABundlePolicy = publishName + "-cabundle"

// TestChartPublishWebhookPolicy: with self-managed TLS, where the webhook's
// identity may patch its MutatingWebhookConfiguration, the chart renders
// the ValidatingAdmissionPolicy of manifests/publish that lets it change
// the caBundle only, bound with Deny, for the release's ServiceAccount and
// configuration. With cert-manager the webhook patches nothing: neither the
// right nor the policy is rendered. (Integration TestWebhookConfigurationPolicy
// holds the policy to its word on the real API server.)
func TestChartPublishWebhookPolicy(t *testing.T) {
	manifests := kustomizeManifests(t, publishDir)
	chart := renderChart(t, besideNamespace, publishEnabled)
	mp := get[*admissionregistrationv1.ValidatingAdmissionPolicy](t, manifests, "ValidatingAdmissionPolicy", "", publishCABundlePolicy)
	cp := get[*admissionregistrationv1.ValidatingAdmissionPolicy](t, chart, "ValidatingAdmissionPolicy", "", publishCABundlePolicy)
	if diff := cmp.Diff(mp.Spec, cp.Spec); diff != "" {
		t.Errorf("policy (-manifests +chart):\n%s", diff)
	}
	mb := get[*admissionregistrationv1.ValidatingAdmissionPolicyBinding](t, manifests, "ValidatingAdmissionPolicyBinding", "", publishCABundlePolicy)
	cb := get[*admissionregistrationv1.ValidatingAdmissionPolicyBinding](t, chart, "ValidatingAdmissionPolicyBinding", "", publishCABundlePolicy)
	if diff := cmp.Diff(mb.Spec, cb.Spec); diff != "" {
		t.Errorf("policy binding (-manifests +chart):\n%s", diff)
	}
	for set, b := range map[string]*admissionregistrationv1.ValidatingAdmissionPolicyBinding{"manifests": mb, "chart": cb} {
		if b.Spec.PolicyName != publishCABundlePolicy || len(b.Spec.ValidationActions) != 1 || b.Spec.ValidationActions[0] != admissionregistrationv1.Deny || b.Spec.MatchResources != nil {
			t.Errorf("%s binding %+v, want the policy everywhere, with Deny", set, b.Spec)
		}
	}
	if p := cp.Spec.FailurePolicy; p == nil || *p != admissionregistrationv1.Fail {
		t.Errorf("failurePolicy %v, want Fail: a policy that cannot be evaluated must refuse", p)
	}
	ops := map[admissionregistrationv1.OperationType]bool{}
	for _, r := range cp.Spec.MatchConstraints.ResourceRules {
		for _, op := range r.Operations {
			ops[op] = true
		}
	}
	if !ops[admissionregistrationv1.Update] || !ops[admissionregistrationv1.Delete] {
		t.Errorf("the policy holds operations %v, want UPDATE and DELETE at least", ops)
	}

	// A release elsewhere, under an account of its own: the policy names
	// them, and the release's configuration.
	m := renderChart(t, "tools", `publish: {enabled: true, serviceAccount: {name: webhook-sa}}`)
	p := get[*admissionregistrationv1.ValidatingAdmissionPolicy](t, m, "ValidatingAdmissionPolicy", "", publishCABundlePolicy)
	cfg := get[*admissionregistrationv1.MutatingWebhookConfiguration](t, m, "MutatingWebhookConfiguration", "", publishWebhook)
	if len(p.Spec.MatchConditions) != 1 || !strings.Contains(p.Spec.MatchConditions[0].Expression, "'system:serviceaccount:tools:webhook-sa'") {
		t.Errorf("match conditions %+v, want the webhook's account tools/webhook-sa", p.Spec.MatchConditions)
	}
	if !strings.Contains(p.Spec.Validations[0].Expression, "'"+cfg.Name+"'") {
		t.Errorf("the first validation %q does not name the configuration %s", p.Spec.Validations[0].Expression, cfg.Name)
	}
	if b := get[*rbacv1.ClusterRoleBinding](t, m, "ClusterRoleBinding", "", publishName); b.Subjects[0].Name != "webhook-sa" || b.Subjects[0].Namespace != "tools" {
		t.Errorf("the ClusterRole is bound to %+v, the policy holds tools/webhook-sa", b.Subjects)
	}

	for _, values := range []string{
		`publish: {enabled: true, certManager: {enabled: true}}`,
		`publish: {enabled: true, certManager: {enabled: true}, metricsAuth: none}`,
	} {
		m := renderChart(t, besideNamespace, values)
		for _, key := range []string{
			objectKey("ValidatingAdmissionPolicy", "", publishCABundlePolicy),
			objectKey("ValidatingAdmissionPolicyBinding", "", publishCABundlePolicy),
			objectKey("ClusterRole", "", publishName),
		} {
			if _, ok := m[key]; ok {
				t.Errorf("%s: %s rendered; the webhook patches nothing with cert-manager", values, key)
			}
		}
		for _, key := range m.keys() {
			if atoms := ruleAtoms(roleRules(m[key])); strings.Contains(strings.Join(atoms, " "), "mutatingwebhookconfigurations") &&
				!strings.Contains(key, "uninstall") {
				t.Errorf("%s: %s grants %v", values, key, atoms)
			}
		}
	}
	if m := renderChart(t, besideNamespace); len(m.keys()) > 0 {
		for _, key := range m.keys() {
			if strings.HasPrefix(key, "ValidatingAdmissionPolicy") {
				t.Errorf("publish mode off renders %s", key)
			}
		}
	}
}
