//go:build !k8s1_35 && !k8s1_36

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
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	perf "k8s.io/kubernetes/test/integration/scheduler_perf"
	"k8s.io/kubernetes/test/utils/client-go/ktesting"

	"github.com/windows-aware/windows-aware/test/bench/schedcpu"
)

// setup is what a scheduler_perf package's own test file does around the
// harness that a run of its workloads must do too.
type setup struct {
	// allocator is the DRA allocator its benchmark enables
	// (structured.EnableAllocators). Which allocator runs is beside the
	// point of these runs: the one upstream benchmarks with.
	allocator string
	// preRun and nodeUpdate are the hooks it passes the harness.
	preRun     perf.PreRunFn
	nodeUpdate perf.NodeUpdateFn
	// podsTimeout is the longest it lets the harness wait for pods to be
	// scheduled, where it sets one.
	podsTimeout time.Duration
	// skip, when set, is why its workloads cannot run here.
	skip string
	// marks are what its test file must still say for this setup to be
	// the one it needs: a changed test file is skipped, not guessed at.
	marks []string
}

// setups are the packages whose test files do more than call the harness
// with the workloads file. Every other package's test file must be plain
// (plainCall), or its workloads are skipped.
var setups = map[string]setup{
	"dra":                          allocator("incubating"),
	"dra/compatibilitygroups":      allocator("experimental"),
	"dra/consumablecapacity":       allocator("experimental"),
	"dra/devicetaints":             allocator("experimental"),
	"dra/extendedresource":         allocator("experimental"),
	"dra/extendedresource/scoring": allocator("experimental"),
	"dra/listattributes":           allocator("experimental"),
	"dra/partitionabledevices":     allocator("experimental"),
	"dra/prioritizedlist":          allocator("incubating"),
	"dra/workloadresourceclaims":   allocator("incubating"),
	"podgroup/tas": {
		podsTimeout: 20 * time.Minute,
		marks:       []string{"perf.WithPodsSchedulingTimeout(20*time.Minute)"},
	},
	"nodedeclaredfeatures": {
		preRun:     registerDeclaredFeatures,
		nodeUpdate: declareFeatures,
		marks:      []string{"perf.WithPreRunFn(preInitNodeDeclaredFeatures), perf.WithNodeUpdateFn(updateNodesWithDeclaredFeatures)"},
	},
}

// options are the harness options of the setup, with the check that the
// scheduler built the plugins (c) run before its own pre-run hook.
func (s setup) options(c *builds, variant string) []perf.SchedulerPerfOption {
	opts := []perf.SchedulerPerfOption{
		perf.WithPreRunFn(func(tCtx ktesting.TContext, w *perf.Workload) (func(), error) {
			c.reset()
			// The workload's API server and scheduler inherit the label:
			// the CPU profile's samples say which workload they belong to.
			schedcpu.Label(tCtx.Name())
			if s.preRun == nil {
				return nil, nil
			}
			return s.preRun(tCtx, w)
		}),
		perf.WithPrepareFn(func(tCtx ktesting.TContext) error {
			// Runs after the workload, before the harness resets the
			// scheduler's metrics (cleanups run last registered first).
			tCtx.Cleanup(func() {
				if tCtx.TB().Failed() {
					return
				}
				if err := schedcpu.Record(tCtx.Name(), topic); err != nil {
					tCtx.Errorf("recording the pods scheduled: %v", err)
				}
			})
			return c.check(tCtx, variant)
		}),
	}
	if s.nodeUpdate != nil {
		opts = append(opts, perf.WithNodeUpdateFn(s.nodeUpdate))
	}
	if s.podsTimeout > 0 {
		opts = append(opts, perf.WithPodsSchedulingTimeout(s.podsTimeout))
	}
	return opts
}

func allocator(name string) setup {
	return setup{allocator: name, marks: []string{fmt.Sprintf("EnableAllocators(%q)", name)}}
}

// plainCall is the benchmark a test file with nothing of its own runs.
var plainCall = regexp.MustCompile(`perf\.RunBenchmarkPerfScheduling\(b, "` + regexp.QuoteMeta(workloadsFile) + `", "[^"]*", nil\)`)

// extras are what a test file does beyond calling the harness.
var extras = regexp.MustCompile(`perf\.With[A-Za-z]*\(|structured\.|featuregatetesting\.`)

// setupOf returns the setup of package pkg, whose upstream sources are in
// dir: the known one where its test file still reads as expected, a plain
// one where its test file does nothing but call the harness, else one
// that skips it, saying why.
func setupOf(pkg, dir string) setup {
	src, err := testSources(dir)
	if err != nil {
		return setup{skip: fmt.Sprintf("reading its test files: %v", err)}
	}
	if s, ok := setups[pkg]; ok {
		for _, m := range s.marks {
			if !strings.Contains(src, m) {
				return setup{skip: fmt.Sprintf("its test file no longer says %s: its setup here is out of date", m)}
			}
		}
		return s
	}
	if !plainCall.MatchString(src) || extras.MatchString(src) {
		return setup{skip: "its test file does more than run the workloads (options, hooks or allocators) and this package has no setup for it"}
	}
	return setup{}
}

// testSources are the _test.go files of one package directory, joined.
func testSources(dir string) (string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return "", err
	}
	if len(files) == 0 {
		return "", fmt.Errorf("no _test.go files in %s", dir)
	}
	var b strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		b.Write(data)
	}
	return b.String(), nil
}

// TestSetupOf reads synthetic test files: a plain one runs, one that does
// more is skipped unless its package has a setup, and a known package
// whose test file changed is skipped; a skip always says why.
func TestSetupOf(t *testing.T) {
	const plain = `func BenchmarkPerfScheduling(b *testing.B) {
	perf.RunBenchmarkPerfScheduling(b, "performance-config.yaml", "misc", nil)
}`
	const withOption = `func BenchmarkPerfScheduling(b *testing.B) {
	perf.RunBenchmarkPerfScheduling(b, "performance-config.yaml", "x", nil, perf.WithPreRunFn(prepare))
}`
	const allocated = `func BenchmarkPerfScheduling(b *testing.B) {
	structured.EnableAllocators("experimental")
	defer structured.EnableAllocators()
	perf.RunBenchmarkPerfScheduling(b, "performance-config.yaml", "dra_devicetaints", nil)
}`
	for _, tt := range []struct {
		name, pkg, src string
		skip           string // part of the reason; "" runs
		allocator      string
	}{
		{name: "plain", pkg: "misc", src: plain},
		{name: "options of its own", pkg: "newpackage", src: withOption, skip: "has no setup"},
		{name: "an allocator of its own", pkg: "dra/newpackage", src: allocated, skip: "has no setup"},
		{name: "known and unchanged", pkg: "dra/devicetaints", src: allocated, allocator: "experimental"},
		{name: "known but changed", pkg: "dra/devicetaints", src: plain, skip: "out of date"},
		{name: "no test file", pkg: "misc", skip: "no _test.go files"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.src != "" {
				if err := os.WriteFile(filepath.Join(dir, "x_test.go"), []byte(tt.src), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s := setupOf(tt.pkg, dir)
			if tt.skip == "" && s.skip != "" || !strings.Contains(s.skip, tt.skip) {
				t.Errorf("skip %q, want one containing %q", s.skip, tt.skip)
			}
			if s.allocator != tt.allocator {
				t.Errorf("allocator %q, want %q", s.allocator, tt.allocator)
			}
		})
	}
}
