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
	"bytes"
	"strings"
	"testing"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// TestReportsEscapeWhatTenantsWrite: explain's text (names from a file,
// a live pod's published annotation, an image that does not parse), and
// upgrade-plan's table and markdown (a reason and a workload name) print
// no control character that came in.
func TestReportsEscapeWhatTenantsWrite(t *testing.T) {
	catalog := windows.DefaultCatalog()
	for _, h := range fixture.HostileText {
		r := &Report{Profile: "windows-aware", Templates: []TemplateReport{{
			Source: "file" + h + ".yaml", Kind: "Deployment", Namespace: "team-a", Name: "web" + h,
			SchedulerName: "windows-aware", PlacedByProfile: true,
			Published: &PublishedReport{Error: "record " + h},
			OS:        "windows", OSFrom: "its tag",
			Images: []ImageReport{{Image: "acme/web:" + h, Source: "tag"}},
			Fixes:  []string{"set it" + h},
		}}}
		var text bytes.Buffer
		if err := WriteText(&text, r, catalog); err != nil {
			t.Fatal(err)
		}
		fixture.CheckPrintable(t, "explain's text", text.String())

		p := &UpgradePlan{Target: "10.0.26100", Profile: "windows-aware",
			Workloads: []WorkloadPlan{{Kind: "Deployment", Namespace: "team-a", Name: "web", Verdict: VerdictUnknown, Reason: "image " + h}},
			Blocking:  []PodPlan{{Namespace: "team-a", Name: "web-1", Node: "w1", Workload: "Deployment web" + h, Reason: "why" + h}},
		}
		p.Summary.Unknown = 1
		var table, markdown bytes.Buffer
		if err := WriteUpgradeTable(&table, p, catalog); err != nil {
			t.Fatal(err)
		}
		fixture.CheckPrintable(t, "upgrade-plan's table", table.String())
		if err := WriteUpgradeMarkdown(&markdown, p, catalog); err != nil {
			t.Fatal(err)
		}
		fixture.CheckPrintable(t, "upgrade-plan's markdown", markdown.String())
		if !strings.Contains(markdown.String(), "`team-a/web-1`") {
			t.Errorf("markdown lacks the pod as a code span:\n%s", markdown.String())
		}
	}
}
