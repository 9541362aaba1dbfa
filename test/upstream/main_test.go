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
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	_ "k8s.io/component-base/logs/json/register"
	perf "k8s.io/kubernetes/test/integration/scheduler_perf"
)

var (
	variantsFlag = flag.String("plugins", WindowsAware,
		"comma-separated variants each workload runs in: "+WindowsAware+" (the plugins added) and "+Stock+" (as upstream wrote it)")
	thresholdsFlag = flag.Bool("thresholds", true,
		"hold workloads to upstream's throughput thresholds (false for a comparison on a machine they are not set for)")
	shardFlag = flag.String("shard", "1/1",
		"i/n: run the packages of part i of n, split by the workloads the label filter selects in each (the n parts run side by side)")
)

// upstreamTree is the copy of scheduler_perf the workloads run from.
var upstreamTree *tree

func TestMain(m *testing.M) {
	if err := perf.InitTests(); err != nil {
		fmt.Fprintf(os.Stderr, "%v\n", err)
		os.Exit(1)
	}
	os.Exit(run(m))
}

func run(m *testing.M) int {
	// A workload starts a cluster of its own: a second iteration measures
	// nothing the first did not, and a short workload would be repeated
	// until -benchtime's default second is filled.
	if !flagSet("test.benchtime") {
		if err := flag.Set("test.benchtime", "1x"); err != nil {
			fmt.Fprintf(os.Stderr, "%v\n", err)
			return 1
		}
	}
	mod, err := moduleDir()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%v\n", err)
		return 1
	}
	upstreamTree, err = copyTree(filepath.Join(mod, perfDir), os.TempDir())
	if err != nil {
		fmt.Fprintf(os.Stderr, "copying scheduler_perf: %v\n", err)
		return 1
	}
	defer os.RemoveAll(upstreamTree.root)
	code := m.Run()
	skips.print()
	return code
}

func flagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// skipLog keeps every skip this package decides on (not the harness's own
// skips by label), for the summary after the run.
type skipLog struct {
	mu      sync.Mutex
	reasons map[string]string
}

var skips skipLog

// skip skips tb, saying why, and notes it for the summary.
func (s *skipLog) skip(tb testing.TB, reason string) {
	tb.Helper()
	s.mu.Lock()
	if s.reasons == nil {
		s.reasons = map[string]string{}
	}
	s.reasons[tb.Name()] = reason
	s.mu.Unlock()
	tb.Skip(reason)
}

func (s *skipLog) print() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.reasons) == 0 {
		return
	}
	names := make([]string, 0, len(s.reasons))
	for n := range s.reasons {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Printf("\nSkipped (%d):\n", len(names))
	for _, n := range names {
		fmt.Printf("  %s: %s\n", n, s.reasons[n])
	}
}

// variants are the -plugins values, checked.
func variants() ([]string, error) {
	var out []string
	for _, v := range strings.Split(*variantsFlag, ",") {
		switch v = strings.TrimSpace(v); v {
		case Stock, WindowsAware:
			out = append(out, v)
		case "":
		default:
			return nil, fmt.Errorf("-plugins: unknown variant %q (want %s or %s)", v, Stock, WindowsAware)
		}
	}
	return out, nil
}
