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
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// publishWebhooks is the chart's webhook configuration, rendered in
// namespace with values.
func publishWebhooks(t *testing.T, namespace, values string) []admissionregistrationv1.MutatingWebhook {
	t.Helper()
	c := renderChart(t, namespace, values)
	return get[*admissionregistrationv1.MutatingWebhookConfiguration](t, c, "MutatingWebhookConfiguration", "", publishWebhook).Webhooks
}

func webhookNames(hooks []admissionregistrationv1.MutatingWebhook) []string {
	var out []string
	for _, w := range hooks {
		out = append(out, w.Name)
	}
	return out
}

func webhookNamed(t *testing.T, hooks []admissionregistrationv1.MutatingWebhook, name string) admissionregistrationv1.MutatingWebhook {
	t.Helper()
	for _, w := range hooks {
		if w.Name == name {
			return w
		}
	}
	t.Fatalf("no webhook %s among %v", name, webhookNames(hooks))
	return admissionregistrationv1.MutatingWebhook{}
}

// TestChartTemplatesMatchesManifests: the chart's cluster-wide opt-in and
// templates webhooks are those of manifests/publish/templates and
// manifests/publish/cluster-wide, webhook for webhook, in order.
func TestChartTemplatesMatchesManifests(t *testing.T) {
	for dir, values := range map[string]string{
		"templates":    `publish: {enabled: true, templates: {enabled: true}}`,
		"cluster-wide": `publish: {enabled: true, clusterWideOptIn: true, templates: {enabled: true}}`,
	} {
		t.Run(dir, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(publishDir, dir, "mutatingwebhookconfiguration.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			m := get[*admissionregistrationv1.MutatingWebhookConfiguration](t, decodeManifests(t, dir, data, ""), "MutatingWebhookConfiguration", "", publishWebhook)
			if diff := cmp.Diff(m.Webhooks, publishWebhooks(t, besideNamespace, values)); diff != "" {
				t.Errorf("webhooks (-manifests +chart):\n%s", diff)
			}
		})
	}
}

// TestChartTemplatesValues: what publish.clusterWideOptIn and
// publish.templates render, and that by default they render nothing.
func TestChartTemplatesValues(t *testing.T) {
	optOut := metav1.LabelSelectorRequirement{Key: "windows-aware.x-k8s.io/opt-in", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"false", "true"}}
	tests := []struct {
		name, namespace, values string
		wantNames               []string
		// wantSelector is the namespaceSelector of the webhook named
		// selectorOf, when set.
		selectorOf   string
		wantSelector *metav1.LabelSelector
		// wantResources are the resources of the templates webhook, by group.
		wantResources map[string][]string
	}{
		{
			name: "default: the namespace opt-in and publishing alone", namespace: besideNamespace, values: publishEnabled,
			wantNames: []string{"opt-in.windows-aware.x-k8s.io", "publish.windows-aware.x-k8s.io"},
		},
		{
			name: "cluster-wide: every namespace but kube-system, the release's and the labelled", namespace: besideNamespace,
			values:     `publish: {enabled: true, clusterWideOptIn: true}`,
			wantNames:  []string{"opt-in.windows-aware.x-k8s.io", "cluster-opt-in.windows-aware.x-k8s.io", "publish.windows-aware.x-k8s.io"},
			selectorOf: "cluster-opt-in.windows-aware.x-k8s.io",
			wantSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				optOut, {Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"kube-system"}},
			}},
		},
		{
			name: "cluster-wide from another namespace: that one too", namespace: "windows-aware",
			values:     `publish: {enabled: true, clusterWideOptIn: true}`,
			wantNames:  []string{"opt-in.windows-aware.x-k8s.io", "cluster-opt-in.windows-aware.x-k8s.io", "publish.windows-aware.x-k8s.io"},
			selectorOf: "cluster-opt-in.windows-aware.x-k8s.io",
			wantSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				optOut, {Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"kube-system", "windows-aware"}},
			}},
		},
		{
			name: "cluster-wide without the namespace opt-in: namespaces labelled true are the cluster's", namespace: besideNamespace,
			values:     `publish: {enabled: true, namespaceOptIn: false, clusterWideOptIn: true, templates: {enabled: true}}`,
			wantNames:  []string{"cluster-opt-in.windows-aware.x-k8s.io", "publish.windows-aware.x-k8s.io", "cluster-templates.windows-aware.x-k8s.io"},
			selectorOf: "cluster-templates.windows-aware.x-k8s.io",
			wantSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "windows-aware.x-k8s.io/opt-in", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"false"}},
				{Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"kube-system"}},
			}},
		},
		{
			name: "templates by namespace, every kind", namespace: besideNamespace,
			values:        `publish: {enabled: true, templates: {enabled: true}}`,
			wantNames:     []string{"opt-in.windows-aware.x-k8s.io", "publish.windows-aware.x-k8s.io", "templates.windows-aware.x-k8s.io"},
			selectorOf:    "templates.windows-aware.x-k8s.io",
			wantSelector:  &metav1.LabelSelector{MatchLabels: map[string]string{"windows-aware.x-k8s.io/opt-in": "true"}},
			wantResources: map[string][]string{"apps": {"daemonsets", "deployments", "statefulsets", "replicasets"}, "batch": {"jobs", "cronjobs"}},
		},
		{
			name: "templates of DaemonSets alone", namespace: besideNamespace,
			values:        `publish: {enabled: true, templates: {enabled: true, kinds: [DaemonSet]}}`,
			wantNames:     []string{"opt-in.windows-aware.x-k8s.io", "publish.windows-aware.x-k8s.io", "templates.windows-aware.x-k8s.io"},
			wantResources: map[string][]string{"apps": {"daemonsets"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hooks := publishWebhooks(t, tt.namespace, tt.values)
			if diff := cmp.Diff(tt.wantNames, webhookNames(hooks)); diff != "" {
				t.Errorf("webhooks (-want +got):\n%s", diff)
			}
			for _, w := range hooks {
				if *w.FailurePolicy != admissionregistrationv1.Ignore || *w.SideEffects != admissionregistrationv1.SideEffectClassNone {
					t.Errorf("webhook %s: failurePolicy %s, sideEffects %s", w.Name, *w.FailurePolicy, *w.SideEffects)
				}
				if strings.Contains(w.Name, "templates") {
					if *w.ClientConfig.Service.Path != "/templates" {
						t.Errorf("webhook %s calls %s", w.Name, *w.ClientConfig.Service.Path)
					}
					if !slices.ContainsFunc(w.MatchConditions, func(c admissionregistrationv1.MatchCondition) bool { return c.Name == "not-controlled" }) {
						t.Errorf("webhook %s is called for the ReplicaSets and Jobs controllers make", w.Name)
					}
					got := map[string][]string{}
					for _, r := range w.Rules {
						if !slices.Equal(r.Operations, []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}) {
							t.Errorf("webhook %s: operations %v", w.Name, r.Operations)
						}
						got[r.APIGroups[0]] = append(got[r.APIGroups[0]], r.Resources...)
					}
					if tt.wantResources != nil {
						if diff := cmp.Diff(tt.wantResources, got); diff != "" {
							t.Errorf("webhook %s resources (-want +got):\n%s", w.Name, diff)
						}
					}
				}
			}
			if tt.selectorOf != "" {
				if diff := cmp.Diff(tt.wantSelector, webhookNamed(t, hooks, tt.selectorOf).NamespaceSelector); diff != "" {
					t.Errorf("%s namespaceSelector (-want +got):\n%s", tt.selectorOf, diff)
				}
			}
		})
	}
}

// TestChartTemplatesRejectsBadValues: templates with no opt-in to follow,
// or no kind, or a kind it cannot write, do not render.
func TestChartTemplatesRejectsBadValues(t *testing.T) {
	for _, tc := range []struct {
		name, values, want string
	}{
		{name: "templates without an opt-in", values: `publish: {enabled: true, namespaceOptIn: false, templates: {enabled: true}}`, want: "set publish.namespaceOptIn or publish.clusterWideOptIn"},
		{name: "no kind", values: `publish: {enabled: true, templates: {enabled: true, kinds: []}}`, want: "names no kind"},
		{name: "a kind it cannot write", values: `publish: {enabled: true, templates: {enabled: true, kinds: [Pod]}}`, want: "/publish/templates/kinds/0"},
		{name: "a misspelt value", values: `publish: {enabled: true, clusterWide: true}`, want: "clusterWide"},
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
