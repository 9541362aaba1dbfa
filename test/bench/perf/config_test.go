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

package perf

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// TestBindGuardConfigIsShippedPlusGuard keeps the WindowsMixBindGuard
// workloads' configuration the shipped one with BindGuard enabled in the
// windows-aware profile, and nothing else: the guard's cost is read as the
// ratio of those workloads to WindowsMix's windows-aware ones, which run
// the shipped configuration.
func TestBindGuardConfigIsShippedPlusGuard(t *testing.T) {
	read := func(path string) map[string]any {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var out map[string]any
		if err := yaml.Unmarshal(data, &out); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return out
	}
	want := read("../../../manifests/scheduler-config.yaml")
	got := read("scheduler-config-bindguard.yaml")
	added := false
	for _, p := range want["profiles"].([]any) {
		profile := p.(map[string]any)
		if profile["schedulerName"] != "windows-aware" {
			continue
		}
		multi := profile["plugins"].(map[string]any)["multiPoint"].(map[string]any)
		multi["enabled"] = append(multi["enabled"].([]any), map[string]any{"name": "BindGuard"})
		added = true
	}
	if !added {
		t.Fatal("the shipped configuration has no windows-aware profile")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scheduler-config-bindguard.yaml is not the shipped configuration plus BindGuard (-want +got):\n%s", diff)
	}
}
