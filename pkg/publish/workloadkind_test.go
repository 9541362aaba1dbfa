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

package publish

import (
	"encoding/json"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/pkg/workloadkind"
)

// TestEveryKindOfTheTable: the templates webhook reads every kind of the
// table that says it does, and writes the fields it writes at its
// TemplatePath. A kind whose template is at a path it does not know fails
// here, not in a cluster.
func TestEveryKindOfTheTable(t *testing.T) {
	for _, k := range workloadkind.All {
		if k.Templates {
			t.Run("templates "+k.Name, func(t *testing.T) {
				if workloadResources[k.RequestResource()] != k {
					t.Fatalf("the templates webhook does not read %s", k.Resource)
				}
				w := k.New()
				if templateOf(w) == nil {
					t.Fatalf("an empty %s holds no template to write", k.Name)
				}
				templateOf(w).Spec.NodeSelector = map[string]string{v1.LabelOSStable: "windows"}
				raw, err := writtenFieldsOf(w)
				if err != nil {
					t.Fatal(err)
				}
				var at any
				if err := json.Unmarshal(raw, &at); err != nil {
					t.Fatal(err)
				}
				for _, field := range append(strings.Split(k.TemplatePath, "."), "spec", "nodeSelector") {
					m, _ := at.(map[string]any)
					at = m[field]
				}
				if m, _ := at.(map[string]any); m[v1.LabelOSStable] != "windows" {
					t.Errorf("the written fields %s hold no node selector at %s", raw, k.TemplatePath)
				}
				if kindOf(w) != k.Name {
					t.Errorf("kindOf(%T) = %s", w, kindOf(w))
				}
			})
		}
	}
}
