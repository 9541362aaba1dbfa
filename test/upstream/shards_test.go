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
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseShard(t *testing.T) {
	for _, tt := range []struct {
		in      string
		want    shard
		wantErr bool
	}{
		{in: "1/1", want: shard{1, 1}},
		{in: "2/3", want: shard{2, 3}},
		{in: "3/3", want: shard{3, 3}},
		{in: "0/3", wantErr: true},
		{in: "4/3", wantErr: true},
		{in: "1/0", wantErr: true},
		{in: "-1/2", wantErr: true},
		{in: "2", wantErr: true},
		{in: "a/b", wantErr: true},
		{in: "", wantErr: true},
	} {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseShard(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("parseShard(%q) error %v, want error %v", tt.in, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("parseShard(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

// TestSplit checks that every package goes to exactly one shard, heaviest
// first to the lightest shard, the same split every time.
func TestSplit(t *testing.T) {
	weights := map[string]int{"affinity": 12, "misc": 7, "volumes": 5, "dra": 4, "batching": 2, "starvation": 2, "empty": 0}
	packages := []string{"affinity", "batching", "dra", "empty", "misc", "starvation", "volumes"}
	weight := func(pkg string) int { return weights[pkg] }
	for _, tt := range []struct {
		n    int
		want [][]string
	}{
		{n: 1, want: [][]string{packages}},
		// affinity 12 | misc 7 + volumes 5; dra to the first of 12 and
		// 12; batching and starvation to the second (12, then 14 < 16);
		// empty to the first of 16 and 16.
		{n: 2, want: [][]string{{"affinity", "dra", "empty"}, {"batching", "misc", "starvation", "volumes"}}},
		// affinity 12 | misc 7 | volumes 5 + dra 4; batching to the
		// second (7 < 9), starvation to the second of 9 and 9, empty to
		// the third (9 < 11).
		{n: 3, want: [][]string{{"affinity"}, {"batching", "misc", "starvation"}, {"dra", "empty", "volumes"}}},
		{n: 9, want: [][]string{{"affinity"}, {"misc"}, {"volumes"}, {"dra"}, {"batching"}, {"starvation"}, {"empty"}, nil, nil}},
	} {
		got := split(packages, weight, tt.n)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("split into %d (-want +got):\n%s", tt.n, diff)
		}
		all := slices.Concat(got...)
		slices.Sort(all)
		if !slices.Equal(all, packages) {
			t.Errorf("split into %d: the shards hold %v, want every package once", tt.n, all)
		}
	}
}

// TestSelects holds the filter to the harness's semantics (upstream's
// TestLabelFilter, its cases).
func TestSelects(t *testing.T) {
	for filter, results := range map[string]map[string]bool{
		"":                   {"": true, "performance": true, "performance,fast": true},
		"performance":        {"": false, "performance": true, "performance,fast": true},
		"performance,fast":   {"": false, "performance": false, "performance,fast": true},
		"-fast":              {"": true, "performance": true, "performance,fast": false},
		"+performance,-fast": {"": false, "performance": true, "performance,fast": false},
	} {
		for labels, want := range results {
			if got := selects(strings.Split(filter, ","), strings.Split(labels, ",")); got != want {
				t.Errorf("filter %q, labels %q: selects %v, want %v", filter, labels, got, want)
			}
		}
	}
}

// TestSelectedWorkloads counts a package's workloads by the test case's
// labels and the workload's together.
func TestSelectedWorkloads(t *testing.T) {
	dir := t.TempDir()
	const cases = `
- name: Basic
  labels: [integration-test]
  workloads:
  - name: 5Nodes
  - name: 5000Nodes
    labels: [performance]
- name: Affinity
  workloads:
  - name: 5Nodes
    labels: [integration-test, short]
  - name: 500Nodes
    labels: [performance]
`
	if err := os.WriteFile(filepath.Join(dir, workloadsFile), []byte(cases), 0o644); err != nil {
		t.Fatal(err)
	}
	for filter, want := range map[string]int{
		"integration-test,-performance": 2,
		"performance":                   2,
		"short":                         1,
		"":                              4,
	} {
		got, err := selectedWorkloads(dir, filter)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("filter %q: %d workloads, want %d", filter, got, want)
		}
	}
	if _, err := selectedWorkloads(t.TempDir(), ""); err == nil {
		t.Error("a package without test cases: no error")
	}
}
