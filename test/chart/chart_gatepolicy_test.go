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

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// TestChartPublishGatePolicyKeys: the gate remover may add tolerations of
// the taint keys the profile tolerates (pluginArgs.osTaints.keys) and of no
// other: the chart writes them into its admission policy, the scheduler's
// defaults when the values name none, none when it tolerates none.
func TestChartPublishGatePolicyKeys(t *testing.T) {
	const remover = publishName + "-ungate"
	for _, tc := range []struct {
		name, values, want string
	}{
		{name: "defaults", want: "t.key in ['os', 'node.kubernetes.io/os']"},
		{name: "keys of the cluster's", values: `pluginArgs: {osTaints: {keys: [os, example.com/os]}}`, want: "t.key in ['os', 'example.com/os']"},
		{name: "no toleration", values: `pluginArgs: {osTaints: {tolerate: false, keys: [], effects: []}}`, want: "t.key in []"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := renderChart(t, besideNamespace, gatingValues, tc.values)
			p := get[*admissionregistrationv1.ValidatingAdmissionPolicy](t, m, "ValidatingAdmissionPolicy", "", remover)
			var found bool
			for _, v := range p.Spec.Validations {
				if strings.Contains(v.Expression, "variables.newTolerations") {
					found = true
					if !strings.Contains(v.Expression, tc.want) || strings.Contains(v.Expression, "PreferNoSchedule") {
						t.Errorf("the toleration validation %q, want %s and NoSchedule only", v.Expression, tc.want)
					}
				}
			}
			if !found {
				t.Fatal("no validation of tolerations")
			}
			// Only pods that carry the gate, whatever the keys.
			if !strings.Contains(p.Spec.Validations[0].Expression, "'windows-aware.x-k8s.io/platform' in variables.oldGates") {
				t.Errorf("the first validation %q does not hold the gate remover to gated pods", p.Spec.Validations[0].Expression)
			}
		})
	}
}
