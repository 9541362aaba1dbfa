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

package warnings

import (
	"encoding/json"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/pkg/workloadkind"
)

// TestEveryKindOfTheTable: the warnings read every kind of the table that
// says they do, and their partial decode finds the template at its
// TemplatePath. A kind whose template is at a path it does not know fails
// here, not in a cluster.
func TestEveryKindOfTheTable(t *testing.T) {
	for _, k := range workloadkind.All {
		if !k.Warnings {
			continue
		}
		t.Run(k.Name, func(t *testing.T) {
			if warnedKinds[k.RequestResource()] != k.Name {
				t.Fatalf("the warnings do not read %s", k.Resource)
			}
			obj := k.New()
			_, _, spec := workloadkind.PodTemplateOf(obj)
			if spec == nil {
				t.Fatalf("an empty %s holds no template to read", k.Name)
			}
			spec.Containers = []v1.Container{{Name: "app", Image: "example.com/app:1"}}
			raw, err := json.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			read, err := decodeWarnObject(raw)
			if err != nil {
				t.Fatal(err)
			}
			_, got := read.template(k.Name)
			if got == nil || len(got.Containers) != 1 || got.Containers[0].Image != "example.com/app:1" {
				t.Errorf("the partial decode finds no template at %q in %s", k.TemplatePath, raw)
			}
			if k != workloadkind.Pod && read.templateSpecRaw(k.Name) == nil {
				t.Errorf("the partial decode keeps no text of the template at %q", k.TemplatePath)
			}
		})
	}
}
