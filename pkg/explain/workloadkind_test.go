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

package explain

import (
	"strings"
	"testing"

	"github.com/windows-aware/windows-aware/pkg/workloadkind"
)

// TestEveryKindOfTheTable: explain reads the template of every kind of
// workloadkind's table, and an object of it from a cluster by any of its
// names; WorkloadObjects has a list of each kind that upgrade-plan lists,
// and of no other.
func TestEveryKindOfTheTable(t *testing.T) {
	lists := map[*workloadkind.Kind]int{}
	for _, l := range (&WorkloadObjects{}).lists() {
		lists[l.kind]++
	}
	for _, k := range workloadkind.All {
		if want := map[bool]int{true: 1}[k.UpgradePlan]; lists[k] != want {
			t.Errorf("WorkloadObjects holds %d lists of %s, want %d", lists[k], k.Name, want)
		}
		if kind, _, _, ok := podTemplateOf(k.New()); !ok || kind != k.Name {
			t.Errorf("explain reads no template of a %s: %q, %v", k.Name, kind, ok)
		}
		for _, name := range append([]string{strings.ToLower(k.Name), k.Resource.Resource}, k.ShortNames...) {
			if getters[name] == nil {
				t.Errorf("explain reads no %s/NAME from a cluster", name)
			}
		}
	}
}
