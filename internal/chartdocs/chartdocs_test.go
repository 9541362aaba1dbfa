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

package chartdocs

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRows(t *testing.T) {
	for _, tc := range []struct {
		name    string
		values  string
		want    []Row
		wantErr []string
	}{
		{
			name: "scalars of each type, strings quoted",
			values: `# A name.
name: web
# A count.
replicas: 2
# On or off.
enabled: false
# A minor, as a string.
minor: "1.37"
# Nothing.
tag: ""
`,
			want: []Row{
				{Key: "name", Default: `"web"`, Description: "A name."},
				{Key: "replicas", Default: "2", Description: "A count."},
				{Key: "enabled", Default: "false", Description: "On or off."},
				{Key: "minor", Default: `"1.37"`, Description: "A minor, as a string."},
				{Key: "tag", Default: `""`, Description: "Nothing."},
			},
		},
		{
			name: "a mapping of commented keys is a group; its comment a row of its own",
			values: `# The image.
image:
  # Where from.
  repository: r
  pullPolicy: Always # How.
plain:
  # Documented.
  a: 1
`,
			want: []Row{
				{Key: "image", Description: "The image."},
				{Key: "image.repository", Default: `"r"`, Description: "Where from."},
				{Key: "image.pullPolicy", Default: `"Always"`, Description: "How."},
				{Key: "plain.a", Default: "1", Description: "Documented."},
			},
		},
		{
			name: "a mapping of uncommented keys is one value, in the file's order",
			values: `# Resources.
resources:
  requests: {memory: 1Gi, cpu: 100m}
  limits:
    memory: 2Gi
# Tolerations.
tolerations:
  - key: a
    operator: Exists
`,
			want: []Row{
				{Key: "resources", Default: `{requests: {memory: "1Gi", cpu: "100m"}, limits: {memory: "2Gi"}}`, Description: "Resources."},
				{Key: "tolerations", Default: `[{key: "a", operator: "Exists"}]`, Description: "Tolerations."},
			},
		},
		{
			name: "paragraphs, examples and Markdown in comments",
			values: `# Uses <minor> and a_b *c* [d] | e, ` + "`keep <this> | too`" + `.
#
# Next, e.g.
#   - token: x
#     build: "1"
extra: []
`,
			want: []Row{{
				Key:     "extra",
				Default: "[]",
				Description: `Uses &lt;minor&gt; and a\_b \*c\* \[d\] \| e, ` + "`keep <this> \\| too`" + `.<br>Next, e.g.<br>` +
					"`- token: x`<br>`  build: \"1\"`",
			}},
		},
		{
			name:    "a value without a comment",
			values:  "# Documented.\na: 1\nb: 2\ngroup:\n  # Documented.\n  c: 1\n  d: 2\n",
			wantErr: []string{"b (line 3) has no comment", "group.d (line 7) has no comment"},
		},
		{
			name:    "a comment that documents nothing",
			values:  "# A.\na:\n  # B.\n  b: 1\n  # Lost.\n\n# C.\nc: 1\n",
			wantErr: []string{"belongs to no key"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Rows([]byte(tc.values))
			if len(tc.wantErr) == 0 && err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("error %v, want one naming %q", err, want)
				}
			}
			if len(tc.wantErr) > 0 {
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUpdate(t *testing.T) {
	values := []byte("# The count.\nreplicas: 2\n")
	table := "| Key | Default | Description |\n|---|---|---|\n| `replicas` | `2` | The count. |\n"
	for _, tc := range []struct {
		name, readme, want, wantErr string
	}{
		{
			name:   "replaces the part between the markers, keeps the rest",
			readme: "# Chart\n\nIntro.\n\n" + BeginMarker + "\nold\n" + EndMarker + "\n\nAfter.\n",
			want:   "# Chart\n\nIntro.\n\n" + BeginMarker + "\n\n" + table + "\n" + EndMarker + "\n\nAfter.\n",
		},
		{name: "no begin marker", readme: "# Chart\n" + EndMarker + "\n", wantErr: "no line"},
		{name: "no end marker", readme: BeginMarker + "\n", wantErr: "no line"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Update([]byte(tc.readme), values)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one naming %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("README (-want +got):\n%s", diff)
			}
		})
	}
}

// TestChartReadmeIsUpToDate: the chart's README holds the values reference
// that its values.yaml gives now, regenerated here, so that a value added,
// changed or redocumented without make chart-docs fails.
func TestChartReadmeIsUpToDate(t *testing.T) {
	const chart = "../../charts/windows-aware-scheduler"
	values, err := os.ReadFile(chart + "/values.yaml")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(chart + "/README.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := Update(readme, values)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(readme)); diff != "" {
		t.Errorf("charts/windows-aware-scheduler/README.md is out of date; run make chart-docs (-generated +README):\n%s", diff)
	}
}
