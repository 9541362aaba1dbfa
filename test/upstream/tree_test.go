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
)

// TestSchedulerNames reads the profiles pod templates name, and none from
// a scheduler configuration.
func TestSchedulerNames(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		want     []string
	}{
		{name: "no scheduler named", in: "apiVersion: v1\nkind: Pod\nspec:\n  containers: []\n"},
		{name: "the default one", in: "kind: Pod\nspec:\n  schedulerName: default-scheduler\n"},
		{name: "another", in: "kind: Pod\nspec:\n  schedulerName: \"gang-scheduler\" # comment\n", want: []string{"gang-scheduler"}},
		{name: "a configuration's profiles", in: "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: other\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, schedulerNames([]byte(tt.in))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
