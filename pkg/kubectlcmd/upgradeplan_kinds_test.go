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

package kubectlcmd

import (
	"testing"

	"github.com/windows-aware/windows-aware/pkg/workloadkind"
)

// TestUpgradePlanListsEveryPlannedKind: upgrade-plan lists each kind of
// workloadkind's table that says it does, once, and no other.
func TestUpgradePlanListsEveryPlannedKind(t *testing.T) {
	lists := map[*workloadkind.Kind]int{}
	for _, l := range workloadLists {
		lists[l.kind]++
	}
	for _, k := range workloadkind.All {
		if want := map[bool]int{true: 1}[k.UpgradePlan]; lists[k] != want {
			t.Errorf("upgrade-plan lists %s %d times, want %d", k.Name, lists[k], want)
		}
	}
}
