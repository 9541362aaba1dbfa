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
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/windows-aware/windows-aware/pkg/workloadkind"
)

// TestChartWebhooksFollowWorkloadKinds: the chart's webhooks, and those
// of manifests/publish, are called for the resources of the kinds of
// workloadkind's table that the code behind them reads, and for no
// other: the templates webhooks for the kinds whose Templates is set
// (publish.templates.kinds names them all by default, its schema admits
// each, and each named alone renders its own resource), the warnings
// webhooks for those whose Warnings is set. A kind added to the table and
// forgotten in the chart fails here, by name. No RBAC rule of the chart
// names these kinds: the webhooks read the objects the API server sends
// them, and never list or get one.
func TestChartWebhooksFollowWorkloadKinds(t *testing.T) {
	templates := kindResources(func(k *workloadkind.Kind) bool { return k.Templates })
	warned := kindResources(func(k *workloadkind.Kind) bool { return k.Warnings })
	const (
		templatesWhere = "the dict of was.templateResources in templates/_publish.tpl, values.schema.json's publish.templates.kinds and values.yaml's default"
		warningsWhere  = "the rules of templates/warnings-webhook.yaml"
		manifestsWhere = "the /templates webhooks' rules of manifests/publish/templates and manifests/publish/cluster-wide"
	)

	m := renderChart(t, besideNamespace, `{publish: {enabled: true, clusterWideOptIn: true, templates: {enabled: true}}, warnings: {enabled: true}}`)
	hooks := get[*admissionregistrationv1.MutatingWebhookConfiguration](t, m, "MutatingWebhookConfiguration", "", publishWebhook).Webhooks
	templateHooks(t, "the chart's", hooks, templates, templatesWhere)
	for _, w := range get[*admissionregistrationv1.ValidatingWebhookConfiguration](t, m, "ValidatingWebhookConfiguration", "", warningsName).Webhooks {
		sameResources(t, "the chart's warnings webhook "+w.Name, w.Rules, warned, warningsWhere)
	}

	for _, dir := range []string{"templates", "cluster-wide"} {
		file := filepath.Join(publishDir, dir, "mutatingwebhookconfiguration.yaml")
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		cfg := get[*admissionregistrationv1.MutatingWebhookConfiguration](t, decodeManifests(t, file, data, ""), "MutatingWebhookConfiguration", "", publishWebhook)
		templateHooks(t, "manifests/publish/"+dir+"'s", cfg.Webhooks, templates, manifestsWhere)
	}

	var names []string
	for _, kind := range templates {
		names = append(names, kind)
	}
	var enum []string
	if kinds := loadValuesSchema(t).Properties["publish"].Properties["templates"].Properties["kinds"]; kinds != nil && kinds.Items != nil {
		for _, e := range kinds.Items.Enum {
			enum = append(enum, fmt.Sprint(e))
		}
	}
	slices.Sort(names)
	slices.Sort(enum)
	if !slices.Equal(enum, names) {
		t.Errorf("values.schema.json's publish.templates.kinds admits %q, the kinds whose templates the webhook writes are %q", enum, names)
	}

	// Each kind alone: the chart knows each kind's resource by name.
	for resource, kind := range templates {
		out, err := helmTemplate(t, besideNamespace, fmt.Sprintf(`publish: {enabled: true, templates: {enabled: true, kinds: [%s]}}`, kind))
		if err != nil {
			t.Errorf("publish.templates.kinds [%s] does not render (%s name each kind): %v", kind, templatesWhere, err)
			continue
		}
		m := decodeManifests(t, "helm template", out, "")
		hooks := get[*admissionregistrationv1.MutatingWebhookConfiguration](t, m, "MutatingWebhookConfiguration", "", publishWebhook).Webhooks
		templateHooks(t, "the chart's, of "+kind+" alone,", hooks, map[string]string{resource: kind}, templatesWhere)
	}
}

// kindResources are the resources of the kinds of the table that reads,
// as group/version/resource, with the kind of each.
func kindResources(reads func(*workloadkind.Kind) bool) map[string]string {
	out := map[string]string{}
	for _, k := range workloadkind.All {
		if reads(k) {
			out[resourceName(k.Resource.Group, k.Resource.Version, k.Resource.Resource)] = k.Name
		}
	}
	return out
}

func resourceName(group, version, resource string) string {
	return strings.TrimPrefix(group+"/"+version+"/"+resource, "/")
}

// templateHooks checks the resources of the webhooks of hooks that call
// /templates, of which there must be one at least.
func templateHooks(t *testing.T, whose string, hooks []admissionregistrationv1.MutatingWebhook, want map[string]string, where string) {
	t.Helper()
	n := 0
	for _, w := range hooks {
		if w.ClientConfig.Service != nil && w.ClientConfig.Service.Path != nil && *w.ClientConfig.Service.Path == "/templates" {
			n++
			sameResources(t, whose+" templates webhook "+w.Name, w.Rules, want, where)
		}
	}
	if n == 0 {
		t.Errorf("%s webhooks %v call no /templates", whose, webhookNames(hooks))
	}
}

// sameResources fails the test, naming each, where rules are called for a
// resource of no kind of want, or not for one of want's, which where
// lists.
func sameResources(t *testing.T, what string, rules []admissionregistrationv1.RuleWithOperations, want map[string]string, where string) {
	t.Helper()
	got := map[string]bool{}
	for _, r := range rules {
		for _, g := range r.APIGroups {
			for _, v := range r.APIVersions {
				for _, res := range r.Resources {
					got[resourceName(g, v, res)] = true
				}
			}
		}
	}
	var missing, extra []string
	for res, kind := range want {
		if !got[res] {
			missing = append(missing, fmt.Sprintf("%s (%s)", res, kind))
		}
	}
	for res := range got {
		if _, ok := want[res]; !ok {
			extra = append(extra, res)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	if len(missing) > 0 {
		t.Errorf("%s is not called for %s, which workloadkind's table says it reads: add it to %s", what, strings.Join(missing, ", "), where)
	}
	if len(extra) > 0 {
		t.Errorf("%s is called for %s, which workloadkind's table does not say it reads", what, strings.Join(extra, ", "))
	}
}
