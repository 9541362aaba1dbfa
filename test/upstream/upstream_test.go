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
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/dynamic-resource-allocation/structured"
	perf "k8s.io/kubernetes/test/integration/scheduler_perf"
)

// topic names the JSON files the harness writes, and picks a workload's
// threshold where upstream sets one per topic.
const topic = "windows-aware"

// BenchmarkUpstream runs the workloads of every scheduler_perf package
// that the label filter selects (-perf-scheduling-label-filter; make
// test-upstream picks upstream's integration-test set), in each variant of
// -plugins: BenchmarkUpstream/<package>/plugins=<variant>/<test case>/<workload>.
// A package is named by its directory, "/" written "_". -shard i/n runs
// the packages of one of n processes run side by side.
//
// Upstream's integration runner takes no out-of-tree plugins; its
// benchmark runner, one iteration per workload, asserts the same (every
// pod a createPods or barrier op waits for is scheduled, no op fails) and
// upstream's thresholds besides (-thresholds).
func BenchmarkUpstream(b *testing.B) {
	vs, err := variants()
	if err != nil {
		b.Fatal(err)
	}
	ours, err := shippedProfile(shippedConfig)
	if err != nil {
		b.Fatal(err)
	}
	sh, err := parseShard(*shardFlag)
	if err != nil {
		b.Fatal(err)
	}
	packages, err := upstreamTree.packagesOf(sh, perf.PerfSchedulingLabelFilter)
	if err != nil {
		b.Fatal(err)
	}
	for _, pkg := range packages {
		b.Run(strings.ReplaceAll(pkg, "/", "_"), func(b *testing.B) {
			s := setupOf(pkg, filepath.Join(upstreamTree.source, filepath.FromSlash(pkg)))
			if s.skip != "" {
				skips.skip(b, s.skip)
			}
			if s.allocator != "" {
				structured.EnableAllocators(s.allocator)
				defer structured.EnableAllocators()
			}
			// Template paths are relative to the package's directory.
			b.Chdir(filepath.Join(upstreamTree.root, filepath.FromSlash(pkg)))
			for _, v := range vs {
				b.Run("plugins="+v, func(b *testing.B) {
					file, err := upstreamTree.prepare(pkg, v, ours, *thresholdsFlag)
					if err != nil {
						b.Fatal(err)
					}
					var c builds
					perf.RunBenchmarkPerfScheduling(b, file, topic, c.registry(), s.options(&c, v)...)
				})
			}
		})
	}
}

// TestWorkloadsRunAsBenchmarks says how to run the workloads when they
// were not asked for: go test without -bench runs only the tests.
func TestWorkloadsRunAsBenchmarks(t *testing.T) {
	if f := flag.Lookup("test.bench"); f == nil || f.Value.String() == "" {
		t.Skip("the workloads run as benchmarks: -bench BenchmarkUpstream -benchtime 1x (make test-upstream)")
	}
}
