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
package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/windows-aware/windows-aware/internal/manifest"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// TestShippedManifests holds manifests/publish to what the webhook and the
// issue of autoscalers need: it sorts before other mutating webhooks, fails
// open within 2s, is scoped to the profile and the opt-out label the code
// uses, keeps its certificates in the Secret shipped with it and patches the
// configuration shipped with it, and may touch nothing else.
func TestShippedManifests(t *testing.T) {
	dir := filepath.Join("..", "..", "manifests", "publish")
	var objs []any
	for _, f := range []string{"mutatingwebhookconfiguration.yaml", "deployment.yaml", "serviceaccount.yaml", "service.yaml", "pdb.yaml", "secret.yaml", "rbac.yaml"} {
		got, err := manifest.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range got {
			objs = append(objs, o)
		}
	}
	for _, o := range objs {
		switch o := o.(type) {
		case *admissionregistrationv1.MutatingWebhookConfiguration:
			if o.Name >= "vpc-resource-mutating-webhook" || !strings.HasPrefix(o.Name, "00-") {
				t.Errorf("configuration %q does not sort first", o.Name)
			}
			for _, w := range o.Webhooks {
				if *w.FailurePolicy != admissionregistrationv1.Ignore || *w.TimeoutSeconds > 2 || *w.SideEffects != admissionregistrationv1.SideEffectClassNone ||
					*w.ReinvocationPolicy != admissionregistrationv1.NeverReinvocationPolicy {
					t.Errorf("webhook %s: failurePolicy %v, timeout %v, sideEffects %v, reinvocation %v", w.Name, *w.FailurePolicy, *w.TimeoutSeconds, *w.SideEffects, *w.ReinvocationPolicy)
				}
				if len(w.Rules) != 1 || !slices.Equal(w.Rules[0].Operations, []admissionregistrationv1.OperationType{admissionregistrationv1.Create}) ||
					!slices.Equal(w.Rules[0].Resources, []string{"pods"}) {
					t.Errorf("webhook %s rules %+v: want the CREATE of pods only", w.Name, w.Rules)
				}
				var conditions string
				for _, c := range w.MatchConditions {
					conditions += c.Expression + "\n"
				}
				// The publish webhook takes the profile's pods not opted
				// out of publishing; the opt-in webhook, the pods of the
				// stock scheduler not opted out of the profile.
				wants, path := []string{"'windows-aware'", "'" + wellknown.LabelPublish + "'"}, "/mutate"
				if w.Name == "opt-in.windows-aware.x-k8s.io" {
					wants, path = []string{"'default-scheduler'", "'" + wellknown.LabelOptIn + "'"}, "/opt-in"
					if w.NamespaceSelector == nil || w.NamespaceSelector.MatchLabels[wellknown.LabelOptIn] != "true" {
						t.Errorf("webhook %s namespaceSelector %v: want the namespaces labelled %s=true", w.Name, w.NamespaceSelector, wellknown.LabelOptIn)
					}
				}
				for _, want := range wants {
					if !strings.Contains(conditions, want) {
						t.Errorf("webhook %s matchConditions do not name %s:\n%s", w.Name, want, conditions)
					}
				}
				if w.ClientConfig.CABundle != nil {
					t.Errorf("webhook %s ships a caBundle: applying the file again would erase the one the webhook patched in", w.Name)
				}
				if w.ClientConfig.Service == nil || w.ClientConfig.Service.Name != "windows-aware-publish" || *w.ClientConfig.Service.Path != path {
					t.Errorf("webhook %s calls %+v, want the windows-aware-publish Service at %s", w.Name, w.ClientConfig, path)
				}
			}
		case *appsv1.Deployment:
			if *o.Spec.Replicas < 2 || o.Spec.Template.Spec.AutomountServiceAccountToken == nil || !*o.Spec.Template.Spec.AutomountServiceAccountToken {
				t.Errorf("Deployment: %d replicas, automount %v; want 2 or more, and a token for the Secret", *o.Spec.Replicas, o.Spec.Template.Spec.AutomountServiceAccountToken)
			}
			args := strings.Join(o.Spec.Template.Spec.Containers[0].Command, " ")
			for _, want := range []string{"--profile=windows-aware", "--port=9443", "--tls-secret=kube-system/windows-aware-publish-tls",
				"--tls-service=windows-aware-publish", "--webhook-configuration=00-windows-aware-publish",
				"--scheduler-lease=kube-system/windows-aware-scheduler"} {
				if !strings.Contains(args, want) {
					t.Errorf("Deployment command %q lacks %s", args, want)
				}
			}
		case *v1.Secret:
			if o.Name != "windows-aware-publish-tls" || len(o.Data)+len(o.StringData) > 0 {
				t.Errorf("Secret %s holds %d keys: want windows-aware-publish-tls, empty, for the webhook to fill", o.Name, len(o.Data)+len(o.StringData))
			}
		case *rbacv1.Role:
			want := []rbacv1.PolicyRule{
				{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"windows-aware-publish-tls"}, Verbs: []string{"get", "list", "watch", "update"}},
				// The scheduler's Lease, which the opt-in follows, read only.
				{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, ResourceNames: []string{"windows-aware-scheduler"}, Verbs: []string{"get", "list", "watch"}},
			}
			if !equality.Semantic.DeepEqual(o.Rules, want) {
				t.Errorf("Role %s rules %+v, want %+v", o.Name, o.Rules, want)
			}
		case *rbacv1.ClusterRole:
			want := []rbacv1.PolicyRule{{APIGroups: []string{"admissionregistration.k8s.io"}, Resources: []string{"mutatingwebhookconfigurations"},
				ResourceNames: []string{"00-windows-aware-publish"}, Verbs: []string{"get", "patch"}}}
			if !equality.Semantic.DeepEqual(o.Rules, want) {
				t.Errorf("ClusterRole %s rules %+v, want %+v", o.Name, o.Rules, want)
			}
		case *v1.ServiceAccount:
			if o.AutomountServiceAccountToken == nil || *o.AutomountServiceAccountToken {
				t.Errorf("ServiceAccount %s mounts a token", o.Name)
			}
		}
	}
}
