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
package localproc

import (
	"slices"
	"testing"
)

func TestEnvWithout(t *testing.T) {
	t.Setenv("KUBECONFIG", "/elsewhere")
	t.Setenv("REGISTRY_HTTP_ADDR", ":5000")
	t.Setenv("LOCALPROC_TEST_KEPT", "yes")
	tests := []struct {
		name     string
		prefixes []string
		dropped  []string
		kept     []string
	}{
		{name: "a whole name", prefixes: []string{"KUBECONFIG="}, dropped: []string{"KUBECONFIG=/elsewhere"}, kept: []string{"REGISTRY_HTTP_ADDR=:5000", "LOCALPROC_TEST_KEPT=yes"}},
		{name: "name prefixes", prefixes: []string{"REGISTRY_", "KUBECONFIG="}, dropped: []string{"REGISTRY_HTTP_ADDR=:5000", "KUBECONFIG=/elsewhere"}, kept: []string{"LOCALPROC_TEST_KEPT=yes"}},
		{name: "no prefix keeps everything", kept: []string{"KUBECONFIG=/elsewhere", "REGISTRY_HTTP_ADDR=:5000", "LOCALPROC_TEST_KEPT=yes"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := EnvWithout(tc.prefixes...)
			for _, kv := range tc.dropped {
				if slices.Contains(env, kv) {
					t.Errorf("%s kept, want it dropped", kv)
				}
			}
			for _, kv := range tc.kept {
				if !slices.Contains(env, kv) {
					t.Errorf("%s dropped, want it kept", kv)
				}
			}
		})
	}
}
