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

package upstream

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// TestRewriteTestCases checks that every test case gets the configuration
// configFor returns for its own, that thresholds go only when asked, and
// that every other field passes through as written.
func TestRewriteTestCases(t *testing.T) {
	const in = `
- name: Basic
  featureGates:
    SchedulerAsyncAPICalls: false
  labels: [integration-test]
  workloadTemplate:
  - opcode: createNodes
    countParam: $initNodes
  workloads:
  - name: 5Nodes
    labels: [short]
    threshold: 270
    params:
      initNodes: 5
  - name: 5000Nodes
    threshold: {windows-aware: 200}
    params:
      initNodes: 5000
- name: Batching
  schedulerConfigPath: scheduler-config-no-topology.yaml
  workloadTemplate:
  - opcode: createNodes
    count: 10
  workloads:
  - name: 10Nodes
`
	toOurs := func(own string) (string, error) {
		if own == "" {
			return "ours.yaml", nil
		}
		return "ours-" + own, nil
	}
	for _, tt := range []struct {
		name       string
		configFor  func(string) (string, error)
		thresholds bool
		// configs are the test cases' schedulerConfigPath after the rewrite.
		configs []any
		// thresholds are the workloads' thresholds after the rewrite.
		kept []any
	}{
		{
			name:       "with the plugins, thresholds kept",
			configFor:  toOurs,
			thresholds: true,
			configs:    []any{"ours.yaml", "ours-scheduler-config-no-topology.yaml"},
			kept:       []any{270.0, map[string]any{"windows-aware": 200.0}, nil},
		},
		{
			name:      "stock, thresholds dropped",
			configFor: func(own string) (string, error) { return own, nil },
			configs:   []any{nil, "scheduler-config-no-topology.yaml"},
			kept:      []any{nil, nil, nil},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, err := rewriteTestCases([]byte(in), tt.configFor, tt.thresholds)
			if err != nil {
				t.Fatal(err)
			}
			var got, want []map[string]any
			if err := yaml.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			if err := yaml.Unmarshal([]byte(in), &want); err != nil {
				t.Fatal(err)
			}
			var configs, kept []any
			for i, tc := range got {
				configs = append(configs, tc["schedulerConfigPath"])
				for _, w := range tc["workloads"].([]any) {
					kept = append(kept, w.(map[string]any)["threshold"])
				}
				// Everything else as written.
				delete(tc, "schedulerConfigPath")
				delete(want[i], "schedulerConfigPath")
				for j, w := range tc["workloads"].([]any) {
					delete(w.(map[string]any), "threshold")
					delete(want[i]["workloads"].([]any)[j].(map[string]any), "threshold")
				}
			}
			if diff := cmp.Diff(tt.configs, configs); diff != "" {
				t.Errorf("schedulerConfigPath (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.kept, kept); diff != "" {
				t.Errorf("thresholds (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("other fields (-want +got):\n%s", diff)
			}
		})
	}
}
