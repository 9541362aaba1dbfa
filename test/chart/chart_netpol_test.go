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
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// TestChartMemoryLimits: every container the chart runs has a memory
// request and limit by default, so that a fault takes a bounded share of
// its node.
func TestChartMemoryLimits(t *testing.T) {
	// Publish mode with registry resolution gating pods renders every
	// Deployment the chart has: the scheduler, the webhook and the gate
	// remover.
	chart := renderChart(t, besideNamespace, `{publish: {enabled: true}, pluginArgs: {imageResolution: {scope: Windows, registries: [{host: mcr.microsoft.com}]}}}`)
	deployments := 0
	for key, obj := range chart {
		d, ok := obj.(*appsv1.Deployment)
		if !ok {
			continue
		}
		deployments++
		spec := d.Spec.Template.Spec
		for _, c := range append(spec.InitContainers, spec.Containers...) {
			if c.Resources.Limits.Memory().IsZero() || c.Resources.Requests.Memory().IsZero() {
				t.Errorf("%s container %s: memory request %v, limit %v; want both", key, c.Name, c.Resources.Requests.Memory(), c.Resources.Limits.Memory())
			}
		}
	}
	if deployments != 3 {
		t.Errorf("%d Deployments, want the scheduler's, the webhook's and the gate remover's", deployments)
	}
}

// TestChartNetworkPolicy: off by default; on, each of the chart's pods
// admits ingress only on its own port (the scheduler's from metricsFrom
// only), and egress is restricted only when rules are given.
func TestChartNetworkPolicy(t *testing.T) {
	const policies = "NetworkPolicy "
	if chart := renderChart(t, besideNamespace, publishEnabled); strings.Contains(strings.Join(chart.keys(), "\n"), policies) {
		t.Fatalf("NetworkPolicies by default: %v", chart.keys())
	}
	const (
		monitoring = `networkPolicy: {enabled: true, metricsFrom: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: monitoring}}}]}`
		egress     = `networkPolicy: {egress: [{ports: [{port: 53, protocol: UDP}]}]}`
	)
	for _, tc := range []struct {
		name       string
		values     []string
		wantEgress bool
		// wantMetricsFrom: the scheduler's port is open to a peer.
		wantMetricsFrom bool
	}{
		{name: "ingress only, no metrics scraper", values: []string{publishEnabled, `networkPolicy: {enabled: true}`}},
		{name: "metrics from the monitoring namespace", values: []string{publishEnabled, monitoring}, wantMetricsFrom: true},
		{name: "egress restricted", values: []string{publishEnabled, monitoring, egress}, wantMetricsFrom: true, wantEgress: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			chart := renderChart(t, besideNamespace, tc.values...)
			scheduler := get[*appsv1.Deployment](t, chart, "Deployment", besideNamespace, besideRelease)
			webhook := get[*appsv1.Deployment](t, chart, "Deployment", besideNamespace, publishName)
			for _, c := range []struct {
				d       *appsv1.Deployment
				policy  string
				port    int32
				anyFrom bool
			}{
				{d: scheduler, policy: besideRelease, port: scheduler.Spec.Template.Spec.Containers[0].Ports[0].ContainerPort},
				{d: webhook, policy: publishName, port: webhook.Spec.Template.Spec.Containers[0].Ports[0].ContainerPort, anyFrom: true},
			} {
				np := get[*networkingv1.NetworkPolicy](t, chart, "NetworkPolicy", besideNamespace, c.policy)
				sel, err := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector)
				if err != nil || sel.Empty() || !sel.Matches(labels.Set(c.d.Spec.Template.Labels)) {
					t.Errorf("%s selects %v, not the pods of %s", c.policy, np.Spec.PodSelector, c.d.Name)
				}
				hasEgress := false
				for _, p := range np.Spec.PolicyTypes {
					hasEgress = hasEgress || p == networkingv1.PolicyTypeEgress
				}
				if hasEgress != tc.wantEgress || (len(np.Spec.Egress) > 0) != tc.wantEgress {
					t.Errorf("%s egress: policy types %v, rules %v; want restricted %v", c.policy, np.Spec.PolicyTypes, np.Spec.Egress, tc.wantEgress)
				}
				wantRules := 1
				if !c.anyFrom && !tc.wantMetricsFrom {
					wantRules = 0
				}
				if len(np.Spec.Ingress) != wantRules {
					t.Fatalf("%s ingress %+v, want %d rule", c.policy, np.Spec.Ingress, wantRules)
				}
				for _, rule := range np.Spec.Ingress {
					if len(rule.Ports) != 1 || rule.Ports[0].Port == nil || rule.Ports[0].Port.IntVal != c.port {
						t.Errorf("%s admits ports %+v, want %d only", c.policy, rule.Ports, c.port)
					}
					if c.anyFrom != (len(rule.From) == 0) {
						t.Errorf("%s admits from %+v", c.policy, rule.From)
					}
				}
			}
		})
	}
}
