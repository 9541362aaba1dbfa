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

package workloadkind

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestTable: each row's object is of its kind, its template is where its
// TemplatePath says (the JSON of an object whose template names a node
// holds that name under the path), and its owner is a row too.
func TestTable(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range All {
		t.Run(k.Name, func(t *testing.T) {
			if seen[k.Name] || seen[k.Resource.String()] {
				t.Fatalf("%s or %s twice in the table", k.Name, k.Resource)
			}
			seen[k.Name], seen[k.Resource.String()] = true, true
			obj := k.New()
			if Of(obj) != k || Named(k.Name) != k {
				t.Errorf("Of(%T) = %v, Named(%q) = %v, want the row", obj, Of(obj), k.Name, Named(k.Name))
			}
			if k.Owner != "" && Named(k.Owner) == nil {
				t.Errorf("owner %s is no kind of the table", k.Owner)
			}
			if (k == Pod) != (k.Template == nil) || (k.Template == nil) != (k.TemplatePath == "") {
				t.Fatalf("template %v at %q: only Pod, and all of it, is its own template", k.Template != nil, k.TemplatePath)
			}
			got, meta, spec := PodTemplateOf(obj)
			if got != k || meta == nil || spec == nil {
				t.Fatalf("PodTemplateOf(%T) = %v, %v, %v", obj, got, meta, spec)
			}
			meta.Name, spec.NodeName = "the-template", "the-node"
			raw, err := json.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			var at any
			if err := json.Unmarshal(raw, &at); err != nil {
				t.Fatal(err)
			}
			if k.TemplatePath != "" {
				for _, field := range strings.Split(k.TemplatePath, ".") {
					m, _ := at.(map[string]any)
					at = m[field]
				}
			}
			m, _ := at.(map[string]any)
			metadata, _ := m["metadata"].(map[string]any)
			podSpec, _ := m["spec"].(map[string]any)
			if metadata["name"] != "the-template" || podSpec["nodeName"] != "the-node" {
				t.Errorf("%s holds no template at %q: %s", k.Name, k.TemplatePath, raw)
			}
		})
	}
	if p := CronJob.TemplatePointer(); p != "/spec/jobTemplate/spec/template" {
		t.Errorf("CronJob's template at %s", p)
	}
	if Of(nil) != nil || Named("NoSuchKind") != nil {
		t.Error("a kind of no row has a row")
	}
}
