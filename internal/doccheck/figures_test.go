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

package doccheck

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// generatedPages are written by a tool from a run (make bench-report), not
// by hand: their tables repeat the run's figures, which
// benchmarks-findings.md cites with the commit. Pages under a testdata
// directory are a tool's expected output, and skipped too.
var generatedPages = map[string]bool{"docs/benchmarks.md": true}

var (
	unitMinutes = regexp.MustCompile(`([\dentoruvx])\s*(?:min|minutes?)$`)
	unitSeconds = regexp.MustCompile(`(\d)\s*(?:s|sec|seconds?)$`)
	unitTimes   = regexp.MustCompile(`\s*(?:[x×]|times)$`)
	unitPods    = regexp.MustCompile(`\s*(?:pods/s|pods (?:a|per) second)$`)
)

// normal writes a figure one way, whatever its spelling: "1.8 times" and
// "1.8×" are "1.8x", "218 pods a second" is "218 pods/s".
func normal(f string) string {
	f = strings.ToLower(f)
	f = unitTimes.ReplaceAllString(f, "x")
	f = unitPods.ReplaceAllString(f, " pods/s")
	f = unitMinutes.ReplaceAllString(f, "$1 min")
	f = unitSeconds.ReplaceAllString(f, "$1 s")
	return strings.ReplaceAll(f, "-", "–")
}

// TestFiguresOnOnePage: a measurement (a throughput, a ratio, the time a
// make target took) is stated on one page, with the commit or run it is
// from; another page that needs it links there. Two pages with one figure
// are two places to update, and the pages once disagreed: make demo took
// "about two minutes", "22–62 s" and "49 s" on three of them.
func TestFiguresOnOnePage(t *testing.T) {
	where := map[string][]string{} // normal figure -> "page:line (as written)"
	pagesOf := map[string]map[string]bool{}
	for _, page := range pages(t) {
		name, _ := filepath.Rel(repoRoot, page)
		name = filepath.ToSlash(name)
		if generatedPages[name] || strings.Contains("/"+name, "/testdata/") {
			continue
		}
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range Figures(string(data)) {
			keys := []string{normal(f.Text)}
			if len(f.Of) > 0 {
				keys = keys[:0]
				for _, target := range f.Of {
					keys = append(keys, normal(f.Text)+" of "+target)
				}
			}
			for _, n := range keys {
				where[n] = append(where[n], fmt.Sprintf("%s:%d (%q)", name, f.Line, f.Text))
				if pagesOf[n] == nil {
					pagesOf[n] = map[string]bool{}
				}
				pagesOf[n][name] = true
			}
		}
	}
	var figures []string
	for n := range where {
		figures = append(figures, n)
	}
	sort.Strings(figures)
	for _, n := range figures {
		if len(pagesOf[n]) > 1 {
			t.Errorf("the figure %q is on %d pages; keep it on one, with its commit, and link to it from the others:\n  %s",
				n, len(pagesOf[n]), strings.Join(where[n], "\n  "))
		}
	}
}

// TestFigures: what counts as a figure, and what does not (settings,
// counts, versions), so that the check above flags measurements only.
func TestFigures(t *testing.T) {
	page := strings.Join([]string{
		"The profile scheduled 81.1 pods/s, **1.44x** the stock profile (1.8 times",
		"before; 218 pods a second), and 0.30x of its CPU.",
		"",
		"| step | time |",
		"|---|---|",
		"| `make demo`, tools built | 22–62 s, about two minutes in all |",
		"| kube-apiserver and kubectl | 7 min 21 s (8m44s before) |",
		"",
		"The gate remover lists every pod every 5 minutes, waits 10s, and ones",
		"2 replicas ×2 with a 15 s lease; 2 × 4.4 s of jitter; Kubernetes 1.37.2,",
		"release v0.1.0, and linux ×4400 nodes.",
		"",
		"`make test-upstream` takes about 6 minutes.",
		"",
		"```",
		"make demo   # 49 s, 3.5x",
		"```",
	}, "\n")
	var got []string
	for _, f := range Figures(page) {
		got = append(got, fmt.Sprintf("%d:%s", f.Line, f.Text))
	}
	want := []string{
		"1:81.1 pods/s", "2:218 pods a second", "1:1.44x", "1:1.8 times", "2:0.30x",
		"6:22–62 s", "6:two minutes",
		"7:7 min 21 s", "7:8m44s",
		"13:6 minutes",
	}
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("Figures:\n got %q\nwant %q", got, want)
	}
	for in, want := range map[string]string{"1.8 times": "1.8x", "1.44×": "1.44x", "218 pods a second": "218 pods/s", "22-62 seconds": "22–62 s", "8.4 minutes": "8.4 min"} {
		if got := normal(in); got != want {
			t.Errorf("normal(%q) = %q, want %q", in, got, want)
		}
	}
}
