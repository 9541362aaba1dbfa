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

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// podTemplateOf returns the metadata of the pods a workload (or a Pod)
// creates, nil for any other object.
func podTemplateOf(obj runtime.Object) *metav1.ObjectMeta {
	switch o := obj.(type) {
	case *v1.Pod:
		return &o.ObjectMeta
	case *appsv1.Deployment:
		return &o.Spec.Template.ObjectMeta
	case *appsv1.DaemonSet:
		return &o.Spec.Template.ObjectMeta
	case *appsv1.StatefulSet:
		return &o.Spec.Template.ObjectMeta
	case *appsv1.ReplicaSet:
		return &o.Spec.Template.ObjectMeta
	case *batchv1.Job:
		return &o.Spec.Template.ObjectMeta
	case *batchv1.CronJob:
		return &o.Spec.JobTemplate.Spec.Template.ObjectMeta
	}
	return nil
}

// TestChartPodsOptOut: every pod the chart runs (the scheduler, the
// webhook, the gate remover, the uninstall hook's Job) is labelled
// windows-aware.x-k8s.io/opt-in: "false", in every configuration the chart
// tests render. Were the release's namespace opted in (the label
// windows-aware.x-k8s.io/opt-in=true on it), the opt-in webhook would
// otherwise make these pods the profile's, which only the scheduler among
// them serves: a scheduler, webhook or gate remover pod created then would
// never be scheduled, and none would come back after a node drain.
func TestChartPodsOptOut(t *testing.T) {
	const userLabels = `
podLabels: {team: platform}
publish: {podLabels: {team: platform}, ungate: {podLabels: {team: platform}}}
`
	for _, tc := range []struct {
		name   string
		values []string
		// pods is how many pod templates the configuration renders.
		pods int
	}{
		{name: "defaults", pods: 1},
		{name: "host network", values: []string{`hostNetwork: true`}, pods: 1},
		{name: "ServiceMonitor and required anti-affinity", values: []string{`{metrics: {serviceMonitor: {enabled: true}}, podAntiAffinity: required}`}, pods: 1},
		{name: "image resolution without publish mode", values: []string{`{pluginArgs: {imageResolution: {scope: Windows, registries: [{host: mcr.microsoft.com}], credentials: {podPullSecrets: true}}}, imageResolution: {pullSecretNamespaces: [team-a]}}`}, pods: 1},
		{name: "publish mode", values: []string{publishEnabled}, pods: 2},
		{name: "publish mode with NetworkPolicies", values: []string{publishEnabled, `networkPolicy: {enabled: true}`}, pods: 2},
		{name: "cert-manager", values: []string{`publish: {enabled: true, certManager: {enabled: true}}`}, pods: 2},
		{name: "cert-manager, metrics open", values: []string{`publish: {enabled: true, certManager: {enabled: true}, metricsAuth: none}`}, pods: 2},
		{name: "gating: gate remover and uninstall hook", values: []string{gatingValues}, pods: 4},
		{name: "gating with cert-manager", values: []string{gatingValues, `publish: {certManager: {enabled: true}, metricsAuth: none}`}, pods: 4},
		{name: "gating, hook with its options", values: []string{gatingValues, `publish: {uninstallHook: {activeDeadlineSeconds: 600, extraArgs: [--v=2], podAnnotations: {a: b}}}`}, pods: 4},
		{name: "gating, no uninstall hook", values: []string{gatingValues, `publish: {uninstallHook: {enabled: false}}`}, pods: 3},
		{name: "gating with labels of the user's", values: []string{gatingValues, userLabels}, pods: 4},
		{name: "labels of the user's that say false too", values: []string{gatingValues, strings.ReplaceAll(userLabels, "team: platform", `windows-aware.x-k8s.io/opt-in: "false"`)}, pods: 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := renderChart(t, besideNamespace, tc.values...)
			pods := 0
			for _, key := range m.keys() {
				meta := podTemplateOf(m[key])
				if meta == nil {
					continue
				}
				pods++
				if got, ok := meta.Labels[wellknown.LabelOptIn]; !ok || got != "false" {
					t.Errorf("%s: the pod template's labels %v lack %s: \"false\"", key, meta.Labels, wellknown.LabelOptIn)
				}
				if strings.Contains(tc.name, "labels of the user's") && !strings.Contains(tc.name, "false") && meta.Labels["team"] != "platform" && !strings.HasPrefix(key, "Job ") {
					t.Errorf("%s: the user's podLabels were dropped: %v", key, meta.Labels)
				}
			}
			if pods != tc.pods {
				t.Errorf("%d pod templates rendered, want %d: %v", pods, tc.pods, m.keys())
			}
		})
	}

	// podLabels that would opt the chart's own pods in are refused: the
	// label is not the user's to set.
	for _, path := range chartDeployments {
		values := nestValues(t, path.path, map[string]any{"podLabels": map[string]any{wellknown.LabelOptIn: "true"}})
		if _, err := helmTemplate(t, besideNamespace, gatingValues, values); err == nil || !strings.Contains(err.Error(), wellknown.LabelOptIn) {
			t.Errorf("%s opting the pods in: %v, want a refusal naming %s", strings.Join(append(append([]string(nil), path.path...), "podLabels"), "."), err, wellknown.LabelOptIn)
		}
	}
}
