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
	"fmt"

	"sigs.k8s.io/yaml"
)

// rewriteTestCases returns a performance-config.yaml with each test case's
// schedulerConfigPath set to what configFor returns for the path it had
// ("" for none). Without thresholds it also drops every workload's
// throughput threshold: they are set for upstream's reference machines,
// and a benchmark that misses one reports no numbers at all.
//
// The test cases are kept as generic YAML so that every field the harness
// knows, including those of newer minors, passes through unchanged.
func rewriteTestCases(data []byte, configFor func(own string) (string, error), thresholds bool) ([]byte, error) {
	var testCases []map[string]any
	if err := yaml.Unmarshal(data, &testCases); err != nil {
		return nil, err
	}
	for _, tc := range testCases {
		own, _ := tc["schedulerConfigPath"].(string)
		path, err := configFor(own)
		if err != nil {
			return nil, fmt.Errorf("test case %v: %w", tc["name"], err)
		}
		if path == "" {
			delete(tc, "schedulerConfigPath")
		} else {
			tc["schedulerConfigPath"] = path
		}
		if thresholds {
			continue
		}
		workloads, _ := tc["workloads"].([]any)
		for _, w := range workloads {
			if w, ok := w.(map[string]any); ok {
				delete(w, "threshold")
			}
		}
	}
	return yaml.Marshal(testCases)
}
