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
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/windows-aware/windows-aware/internal/manifest"
)

// TestWebhookConfigurationPolicy holds the chart's admission policy for
// the webhook's identity (publish-webhook-policy.yaml, alike in
// manifests/publish/policy.yaml) to its word on the real API server, with
// a token of that identity and the rights the chart grants it (patch on
// its MutatingWebhookConfiguration, by name): it may write the CA into its
// webhooks' caBundle, as self-managed TLS does, and change nothing else
// of the configuration. A stolen token cannot point a webhook at a URL of
// its own, widen what it is called for, make it fail closed, or delete it
// even where RBAC would allow that.
func TestWebhookConfigurationPolicy(t *testing.T) {
	e := requireCluster(t)
	ns := e.namespace()
	// A release name of its own: its cluster-scoped objects (the
	// configuration, the policy) meet no other test's.
	const release = "wapol"
	name := release + "-windows-aware-publish"
	webhook := "00-" + name
	// A profile no pod of the shared cluster names: the configuration,
	// created for real, calls no webhook for any other test's pods.
	objs := e.renderRelease(ns, release, "--set", "publish.enabled=true", "--set", "schedulerName=windows-aware-policy-test")
	policy, rest := e.createIdentity(objs, name)
	for _, obj := range rest {
		if o, ok := obj.(*admissionregistrationv1.MutatingWebhookConfiguration); ok {
			e.createWebhookConfiguration(o)
		}
	}
	sa := e.clientFor(e.serviceAccountToken(ns, name))
	configs := sa.AdmissionregistrationV1().MutatingWebhookConfigurations()
	e.waitAllowed(func() error { _, err := configs.Get(e.ctx, webhook, metav1.GetOptions{}); return err })
	if policy == "" {
		t.Errorf("the chart renders no admission policy for the webhook's identity")
	} else {
		e.waitWebhookPolicyLoaded(sa, webhook, policy)
	}

	// What self-managed TLS sends (pkg/webhookcert): each webhook's name
	// tested at its index, and its caBundle written.
	cfg, err := configs.Get(e.ctx, webhook, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the webhook's identity reading its configuration: %v", err)
	}
	caBundle := func(ca string) []map[string]any {
		var ops []map[string]any
		for i, w := range cfg.Webhooks {
			ops = append(ops,
				map[string]any{"op": "test", "path": fmt.Sprintf("/webhooks/%d/name", i), "value": w.Name},
				map[string]any{"op": "add", "path": fmt.Sprintf("/webhooks/%d/clientConfig/caBundle", i), "value": []byte(ca)})
		}
		return ops
	}
	if len(cfg.Webhooks) != 2 {
		t.Fatalf("the configuration has %d webhooks, want the opt-in and the publish webhook", len(cfg.Webhooks))
	}
	if _, err := configs.Patch(e.ctx, webhook, types.JSONPatchType, mustJSON(t, caBundle("-----BEGIN CERTIFICATE-----\nfirst\n")), metav1.PatchOptions{}); err != nil {
		t.Fatalf("writing the CA bundle, as the webhook does: %v", err)
	}
	op := func(op, path string, value any) map[string]any {
		m := map[string]any{"op": op, "path": path}
		if op != "remove" {
			m["value"] = value
		}
		return m
	}
	publishHook := "/webhooks/1"
	tests := []struct {
		name    string
		patch   []map[string]any
		allowed bool
	}{
		{name: "renew the CA bundle", patch: caBundle("-----BEGIN CERTIFICATE-----\nsecond\n"), allowed: true},
		{name: "point a webhook at a URL", patch: []map[string]any{
			op("remove", publishHook+"/clientConfig/service", nil),
			op("add", publishHook+"/clientConfig/url", "https://evil.example.com/mutate")}},
		{name: "point a webhook at a URL, with a CA bundle", patch: append(caBundle("-----BEGIN CERTIFICATE-----\nevil\n"),
			op("remove", publishHook+"/clientConfig/service", nil),
			op("add", publishHook+"/clientConfig/url", "https://evil.example.com/mutate"))},
		{name: "point a webhook at another Service", patch: []map[string]any{op("replace", publishHook+"/clientConfig/service/name", "evil")}},
		{name: "point a webhook at another namespace", patch: []map[string]any{op("replace", publishHook+"/clientConfig/service/namespace", "kube-public")}},
		{name: "point a webhook at another path", patch: []map[string]any{op("replace", publishHook+"/clientConfig/service/path", "/evil")}},
		{name: "widen the rules to every operation", patch: []map[string]any{op("replace", publishHook+"/rules/0/operations", []string{"*"})}},
		{name: "widen the rules to every resource", patch: []map[string]any{op("replace", publishHook+"/rules/0/resources", []string{"*"})}},
		{name: "add a rule", patch: []map[string]any{op("add", publishHook+"/rules/-", map[string]any{
			"apiGroups": []string{""}, "apiVersions": []string{"v1"}, "operations": []string{"CREATE"}, "resources": []string{"secrets"}})}},
		{name: "drop the matchConditions", patch: []map[string]any{op("remove", publishHook+"/matchConditions", nil)}},
		{name: "widen the namespaceSelector", patch: []map[string]any{op("replace", "/webhooks/0/namespaceSelector", map[string]any{})}},
		{name: "set an objectSelector", patch: []map[string]any{op("replace", publishHook+"/objectSelector", map[string]any{"matchLabels": map[string]string{"a": "b"}})}},
		{name: "match the exact version only", patch: []map[string]any{op("replace", publishHook+"/matchPolicy", "Exact")}},
		{name: "fail closed", patch: []map[string]any{op("replace", publishHook+"/failurePolicy", "Fail")}},
		{name: "change the timeout", patch: []map[string]any{op("replace", publishHook+"/timeoutSeconds", 30)}},
		{name: "change the side effects", patch: []map[string]any{op("replace", publishHook+"/sideEffects", "NoneOnDryRun")}},
		{name: "be called again", patch: []map[string]any{op("replace", publishHook+"/reinvocationPolicy", "IfNeeded")}},
		{name: "change the review versions", patch: []map[string]any{op("replace", publishHook+"/admissionReviewVersions", []string{"v1", "v1beta1"})}},
		{name: "rename a webhook", patch: []map[string]any{op("replace", publishHook+"/name", "evil.example.com")}},
		{name: "add a webhook", patch: []map[string]any{op("add", "/webhooks/-", func() admissionregistrationv1.MutatingWebhook {
			w := *cfg.Webhooks[1].DeepCopy()
			w.Name = "more.example.com"
			return w
		}())}},
		{name: "remove a webhook", patch: []map[string]any{op("remove", "/webhooks/0", nil)}},
		{name: "reorder the webhooks", patch: []map[string]any{op("replace", "/webhooks", []admissionregistrationv1.MutatingWebhook{cfg.Webhooks[1], cfg.Webhooks[0]})}},
		{name: "add a label", patch: []map[string]any{op("add", "/metadata/labels/team", "b")}},
		{name: "add an annotation", patch: []map[string]any{op("add", "/metadata/annotations", map[string]string{"cert-manager.io/inject-ca-from": "evil/evil"})}},
		{name: "add a finalizer", patch: []map[string]any{op("add", "/metadata/finalizers", []string{"example.com/keep"})}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Dry run: the API server admits (or refuses) the change as it
			// would for real, and every case starts from the same object.
			_, err := configs.Patch(e.ctx, webhook, types.JSONPatchType, mustJSON(t, tt.patch), metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}})
			switch {
			case tt.allowed && err != nil:
				t.Errorf("refused: %v", err)
			case !tt.allowed && err == nil:
				t.Error("allowed")
			case !tt.allowed && (policy == "" || !strings.Contains(err.Error(), policy)):
				t.Errorf("refused, but not by the policy: %v", err)
			}
		})
	}

	t.Run("delete it, were RBAC to allow that", func(t *testing.T) {
		e := e.sub(t)
		grant := &rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: name + "-delete"},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{"admissionregistration.k8s.io"}, Resources: []string{"mutatingwebhookconfigurations"},
				ResourceNames: []string{webhook}, Verbs: []string{"delete"}}},
		}
		e.createObject(grant)
		e.createObject(&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: grant.Name},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: grant.Name},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: ns}},
		})
		var err error
		deadline := time.Now().Add(scheduleTimeout)
		for {
			// Until RBAC lets it, then the policy's answer.
			err = configs.Delete(e.ctx, webhook, metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}})
			if err == nil || !strings.Contains(err.Error(), "cannot delete") || time.Now().After(deadline) {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		if err == nil || policy == "" || !strings.Contains(err.Error(), policy) {
			t.Errorf("deleting the configuration as the webhook: %v, want a refusal by the policy", err)
		}
	})

	got, err := e.client.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(e.ctx, webhook, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range got.Webhooks {
		if string(w.ClientConfig.CABundle) != "-----BEGIN CERTIFICATE-----\nfirst\n" || w.ClientConfig.URL != nil || w.ClientConfig.Service == nil || w.ClientConfig.Service.Name != name {
			t.Errorf("webhook %d %s: clientConfig %+v, want the Service and the CA bundle written", i, w.Name, w.ClientConfig)
		}
	}
}

// renderRelease renders the chart as `helm template release` in namespace
// ns with args (--set ...) and decodes every object.
func (e *env) renderRelease(ns, release string, args ...string) []runtime.Object {
	e.t.Helper()
	h := newHelmRelease(e, ns)
	out := h.run(append([]string{"template", release, h.chart}, args...)...)
	objs, err := manifest.Decode([]byte(out))
	if err != nil {
		e.t.Fatalf("decoding the chart: %v", err)
	}
	return objs
}

// createIdentity creates, of a rendered release's objects, the
// ServiceAccount and the RBAC objects named one of names, and every
// admission policy and its binding. It returns the policy's name ("" for
// none) and the objects it left for the caller.
func (e *env) createIdentity(objs []runtime.Object, names ...string) (policy string, rest []runtime.Object) {
	e.t.Helper()
	for _, obj := range objs {
		switch o := obj.(type) {
		case *v1.ServiceAccount, *rbacv1.Role, *rbacv1.RoleBinding, *rbacv1.ClusterRole, *rbacv1.ClusterRoleBinding:
			if slices.Contains(names, obj.(metav1.Object).GetName()) {
				e.createObject(o)
			}
		case *admissionregistrationv1.ValidatingAdmissionPolicy:
			policy = o.Name
			e.createObject(o)
		case *admissionregistrationv1.ValidatingAdmissionPolicyBinding:
			e.createObject(o)
		default:
			rest = append(rest, obj)
		}
	}
	return policy, rest
}

// createWebhookConfiguration creates a MutatingWebhookConfiguration and
// deletes it when the test ends.
func (e *env) createWebhookConfiguration(cfg *admissionregistrationv1.MutatingWebhookConfiguration) {
	e.t.Helper()
	configs := e.client.AdmissionregistrationV1().MutatingWebhookConfigurations()
	if _, err := configs.Create(e.ctx, cfg, metav1.CreateOptions{}); err != nil {
		e.t.Fatalf("creating MutatingWebhookConfiguration %s: %v", cfg.Name, err)
	}
	e.t.Cleanup(func() { _ = configs.Delete(context.Background(), cfg.Name, metav1.DeleteOptions{}) })
}

// waitWebhookPolicyLoaded waits until the policy refuses client's change
// of the configuration's timeout (a dry run): a new policy takes effect
// once the API server has loaded it.
func (e *env) waitWebhookPolicyLoaded(client kubernetes.Interface, webhook, policy string) {
	e.t.Helper()
	probe := []byte(`[{"op":"replace","path":"/webhooks/0/timeoutSeconds","value":7}]`)
	deadline := time.Now().Add(scheduleTimeout)
	for {
		_, err := client.AdmissionregistrationV1().MutatingWebhookConfigurations().Patch(e.ctx, webhook, types.JSONPatchType, probe,
			metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil && strings.Contains(err.Error(), policy) {
			return
		}
		if err != nil && !strings.Contains(err.Error(), "cannot patch") {
			e.t.Fatalf("probing the policy %s: %v", policy, err)
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("the policy %s let the webhook change its configuration for %s (last answer: %v)", policy, scheduleTimeout, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitAllowed waits until call is not refused by RBAC: the API server's
// authorizer sees new roles and bindings shortly after they are created.
func (e *env) waitAllowed(call func() error) {
	e.t.Helper()
	deadline := time.Now().Add(scheduleTimeout)
	for {
		err := call()
		if !apierrors.IsForbidden(err) {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("still refused after %s: %v", scheduleTimeout, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
