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
	"fmt"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestWarningsWebhookConfigurationPolicy: with warnings at apply time on,
// the webhook's identity may also patch its ValidatingWebhookConfiguration
// of warnings (RBAC, by name), and the same policy holds it to writing the
// CA into that configuration's caBundle: a stolen token cannot point the
// warnings webhook elsewhere, widen it or make it fail closed.
func TestWarningsWebhookConfigurationPolicy(t *testing.T) {
	e := requireCluster(t)
	ns := e.namespace()
	const release = "wawarn"
	name := release + "-windows-aware-publish"
	warnings := name + "-warnings"
	objs := e.renderRelease(ns, release, "--set", "publish.enabled=true", "--set", "warnings.enabled=true",
		"--set", "schedulerName=windows-aware-warnings-policy-test")
	policy, rest := e.createIdentity(objs, name, warnings)
	for _, obj := range rest {
		o, ok := obj.(*admissionregistrationv1.ValidatingWebhookConfiguration)
		if !ok {
			continue
		}
		// Never called: its rules are narrowed to a kind no test creates.
		for i := range o.Webhooks {
			o.Webhooks[i].Rules = []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{"example.com"}, APIVersions: []string{"v1"}, Resources: []string{"nothings"}},
			}}
		}
		configs := e.client.AdmissionregistrationV1().ValidatingWebhookConfigurations()
		if _, err := configs.Create(e.ctx, o, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating ValidatingWebhookConfiguration %s: %v", o.Name, err)
		}
		t.Cleanup(func() { _ = configs.Delete(context.Background(), o.Name, metav1.DeleteOptions{}) })
	}
	if policy == "" {
		t.Fatal("the chart renders no admission policy for the webhook's identity")
	}
	sa := e.clientFor(e.serviceAccountToken(ns, name))
	configs := sa.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	e.waitAllowed(func() error { _, err := configs.Get(e.ctx, warnings, metav1.GetOptions{}); return err })
	cfg, err := configs.Get(e.ctx, warnings, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the webhook's identity reading its warnings configuration: %v", err)
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
	// The policy is in force once it refuses a change of the timeout.
	probe := []map[string]any{{"op": "replace", "path": "/webhooks/0/timeoutSeconds", "value": 7}}
	deadline := time.Now().Add(scheduleTimeout)
	for {
		_, err := configs.Patch(e.ctx, warnings, types.JSONPatchType, mustJSON(t, probe), metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil && strings.Contains(err.Error(), policy) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the policy %s let the webhook change its warnings configuration for %s (last answer: %v)", policy, scheduleTimeout, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	tests := []struct {
		name    string
		patch   []map[string]any
		allowed bool
	}{
		{name: "write the CA bundle", patch: caBundle("-----BEGIN CERTIFICATE-----\nfirst\n"), allowed: true},
		{name: "point a webhook at a URL", patch: []map[string]any{
			{"op": "remove", "path": "/webhooks/0/clientConfig/service"},
			{"op": "add", "path": "/webhooks/0/clientConfig/url", "value": "https://evil.example.com/warnings"}}},
		{name: "widen the rules", patch: []map[string]any{{"op": "replace", "path": "/webhooks/0/rules/0/resources", "value": []string{"*"}}}},
		{name: "fail closed", patch: []map[string]any{{"op": "replace", "path": "/webhooks/0/failurePolicy", "value": "Fail"}}},
		{name: "remove a webhook", patch: []map[string]any{{"op": "remove", "path": "/webhooks/1"}}},
		{name: "add a label", patch: []map[string]any{{"op": "add", "path": "/metadata/labels/team", "value": "b"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := configs.Patch(e.ctx, warnings, types.JSONPatchType, mustJSON(t, tt.patch), metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}})
			switch {
			case tt.allowed && err != nil:
				t.Errorf("refused: %v", err)
			case !tt.allowed && err == nil:
				t.Error("allowed")
			case !tt.allowed && !strings.Contains(err.Error(), policy):
				t.Errorf("refused, but not by the policy: %v", err)
			}
		})
	}
}
