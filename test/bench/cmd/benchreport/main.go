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

// Command benchreport turns the results hack/bench.sh leaves in
// _output/bench/<mode>/ into docs/benchmarks.md and the chart
// docs/benchmarks-cost.svg, or (-summary) prints the measured ratios against
// the targets.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Targets of issue #4.
const (
	targetSweepRatio      = 0.2 // windows-aware sweep / stock sweep, at most
	targetPassAllocs      = 0   // allocations per passing node, at most
	targetRejectAllocs    = 1   // allocations per rejected node, at most
	targetVsSelectors     = 1.2 // throughput windows-aware / stock with selectors, at least
	targetVsSchedulingBas = 1.0 // throughput windows-aware / stock SchedulingBasic, at least
)

type results struct {
	dir        string
	meta       map[string]string
	plugins    samples
	perf       *perfResults
	placements []placement
	order      map[string]map[string]string // profile -> point -> plugins
	benchstat  map[string]string
	profiles   map[string]*cpuProfile // pod kind -> CPU profile of its windows-aware sweep
	load       []loadSample
}

func load(dir string) (*results, error) {
	r := &results{dir: dir, meta: readMeta(filepath.Join(dir, "meta.env")), benchstat: map[string]string{}}
	var err error
	if r.plugins, err = parseBench(filepath.Join(dir, "plugins.txt")); err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	if r.plugins == nil {
		r.plugins = samples{}
	}
	if r.perf, err = parsePerf(filepath.Join(dir, "perf")); err != nil {
		return nil, err
	}
	if r.placements, err = parsePlacements(filepath.Join(dir, "perf")); err != nil {
		return nil, err
	}
	r.order = parseOrder(filepath.Join(dir, "plugins-tests.txt"))
	r.profiles = parseProfiles(dir)
	r.load = parseLoad(filepath.Join(dir, "load.txt"))
	for _, name := range []string{"sweep", "profiles", "filternode", "perf"} {
		if data, err := os.ReadFile(filepath.Join(dir, "benchstat-"+name+".txt")); err == nil {
			r.benchstat[name] = string(data)
		}
	}
	return r, nil
}

var orderLine = regexp.MustCompile(`^ORDER profile=(\S+) point=(\S+) plugins=(\S*)$`)

func parseOrder(path string) map[string]map[string]string {
	out := map[string]map[string]string{}
	data, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(data), "\n") {
		if m := orderLine.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			if out[m[1]] == nil {
				out[m[1]] = map[string]string{}
			}
			out[m[1]][m[2]] = m[3]
		}
	}
	return out
}

// sizes lists the node counts the sweeps ran at.
func (r *results) sizes() []int {
	seen := map[int]bool{}
	re := regexp.MustCompile(`^BenchmarkSweep/nodes=(\d+)/`)
	for name := range r.plugins {
		if m := re.FindStringSubmatch(name); m != nil {
			n, _ := strconv.Atoi(m[1])
			seen[n] = true
		}
	}
	var out []int
	for n := range seen {
		out = append(out, n)
	}
	sort.Ints(out)
	return out
}

func sweepName(n int, pod, approach string) string {
	return fmt.Sprintf("BenchmarkSweep/nodes=%d/pod=%s/approach=%s", n, pod, approach)
}

func profileName(n int, pod, profile string) string {
	return fmt.Sprintf("BenchmarkProfileSweep/nodes=%d/pod=%s/profile=%s", n, pod, profile)
}

var podSets = []string{"linux", "win2019", "win2022", "win2025", "multi", "hostprocess", "mix"}

// costUnit is the measure ratios and the chart use: the process's CPU time
// per op when the benchmarks report it (steadier on a shared machine than
// wall time), else wall time.
func (r *results) costUnit() string {
	for _, m := range r.plugins {
		if _, ok := m["cpu-ns/op"]; ok {
			return "cpu-ns/op"
		}
	}
	return "ns/op"
}

func (r *results) costLabel() string {
	if r.costUnit() == "cpu-ns/op" {
		return "CPU"
	}
	return "wall"
}

// sweepRatio is windows-aware cost over stock cost.
func (r *results) sweepRatio(n int, pod string) (float64, bool) {
	return r.ratioOf(sweepName(n, pod, "windows-aware"), sweepName(n, pod, "stock"), r.costUnit())
}

func (r *results) ratioOf(a, b, unit string) (float64, bool) {
	x, ok1 := r.plugins.median(a, unit)
	y, ok2 := r.plugins.median(b, unit)
	if !ok1 || !ok2 || y == 0 {
		return 0, false
	}
	return x / y, true
}

// allocTargets returns the most allocations windows-aware made for a
// passing and a rejected node over every sweep.
func (r *results) allocTargets() (pass, reject float64, ok bool) {
	for _, n := range r.sizes() {
		for _, pod := range podSets {
			name := sweepName(n, pod, "windows-aware")
			if v, found := r.plugins[name]["allocs/pass-node"]; found {
				for _, x := range v {
					pass = max(pass, x)
				}
				ok = true
			}
			if v, found := r.plugins[name]["allocs/reject-node"]; found {
				for _, x := range v {
					reject = max(reject, x)
				}
			}
		}
	}
	return pass, reject, ok
}

// perf workloads by role.
type perfRoles struct {
	wa, selectors, basic string
}

func (r *results) roles() perfRoles {
	var p perfRoles
	for _, w := range r.perf.workloads() {
		switch {
		case strings.HasPrefix(w, "WindowsMix/") && strings.HasSuffix(w, "_WindowsAware"):
			p.wa = w
		case strings.HasPrefix(w, "WindowsMix/") && strings.HasSuffix(w, "_StockSelectors"):
			p.selectors = w
		case strings.HasPrefix(w, "SchedulingBasic/"):
			p.basic = w
		}
	}
	return p
}

func (r *results) throughput(w string) (float64, int, bool) {
	if w == "" {
		return 0, 0, false
	}
	return r.perf.value(w, "Metric=SchedulingThroughput", "Average")
}

func (r *results) throughputRatio(a, b string) (float64, bool) {
	x, _, ok1 := r.throughput(a)
	y, _, ok2 := r.throughput(b)
	if !ok1 || !ok2 || y == 0 {
		return 0, false
	}
	return x / y, true
}

// pairedRatios returns a's throughput over b's run by run: with one
// process per round (hack/bench.sh), run i of each workload comes from the
// same round, minutes apart rather than a whole workload apart.
func (r *results) pairedRatios(a, b string) []float64 {
	if a == "" || b == "" {
		return nil
	}
	xs := r.perf.all(a, "Metric=SchedulingThroughput", "Average")
	ys := r.perf.all(b, "Metric=SchedulingThroughput", "Average")
	if len(xs) != len(ys) {
		return nil
	}
	var out []float64
	for i := range xs {
		if ys[i] > 0 {
			out = append(out, xs[i]/ys[i])
		}
	}
	return out
}

func ratioList(rs []float64) string {
	var s []string
	for _, x := range rs {
		s = append(s, fmt.Sprintf("%.2fx", x))
	}
	return strings.Join(s, ", ")
}

// target is one target of the issue, measured.
type target struct {
	what, want, got string
	met, known      bool
}

func (r *results) targets() []target {
	var ts []target
	if ratio, ok := r.sweepRatio(5000, "mix"); ok {
		ts = append(ts, target{"Plugin level: windows-aware sweep / NodeAffinity+TaintToleration sweep (pod mix, 5,000 nodes, " + r.costLabel() + " time)",
			fmt.Sprintf("≤ %.1fx", targetSweepRatio), fmt.Sprintf("%.2fx", ratio), ratio <= targetSweepRatio, true})
	}
	if pass, reject, ok := r.allocTargets(); ok {
		ts = append(ts, target{"Plugin level: allocations in Filter for a node that passes (windows-aware, worst pod and size)",
			fmt.Sprintf("%d", targetPassAllocs), fmt.Sprintf("%g", pass), pass <= targetPassAllocs, true})
		ts = append(ts, target{"Plugin level: allocations in Filter for a node that is rejected (windows-aware, worst pod and size)",
			fmt.Sprintf("≤ %d", targetRejectAllocs), fmt.Sprintf("%g", reject), reject <= targetRejectAllocs, true})
	}
	p := r.roles()
	if ratio, ok := r.throughputRatio(p.wa, p.selectors); ok {
		ts = append(ts, target{"Whole scheduler: windows-aware throughput / stock profile with hand-written selectors",
			fmt.Sprintf("≥ %.1fx", targetVsSelectors), fmt.Sprintf("%.2fx", ratio), ratio >= targetVsSelectors, true})
	}
	if ratio, ok := r.throughputRatio(p.wa, p.basic); ok {
		ts = append(ts, target{"Whole scheduler: windows-aware throughput / stock SchedulingBasic",
			fmt.Sprintf("≥ %.1fx", targetVsSchedulingBas), fmt.Sprintf("%.2fx", ratio), ratio >= targetVsSchedulingBas, true})
	}
	misplaced, checked := 0, 0
	for _, pl := range r.placements {
		misplaced += pl.Misplaced + pl.Unbound + len(pl.Errors)
		checked += pl.Pods
	}
	if len(r.placements) > 0 {
		ts = append(ts, target{"Whole scheduler: pods of the mix on a node that cannot run them (all runs)",
			"0", fmt.Sprintf("%d of %d", misplaced, checked), misplaced == 0, true})
	}
	return ts
}

func main() {
	in := flag.String("in", "_output/bench/full", "results directory of hack/bench.sh")
	md := flag.String("md", "", "write the Markdown report here")
	svg := flag.String("svg", "", "write the cost chart here")
	summary := flag.Bool("summary", false, "print the ratios against the targets")
	flag.Parse()
	r, err := load(*in)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(1)
	}
	if *summary {
		printSummary(os.Stdout, r)
	}
	if *svg != "" {
		if err := os.WriteFile(*svg, []byte(costChart(r)), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "benchreport:", err)
			os.Exit(1)
		}
	}
	if *md != "" {
		chart := ""
		if *svg != "" {
			rel, err := filepath.Rel(filepath.Dir(*md), *svg)
			if err != nil {
				rel = *svg
			}
			chart = rel
		}
		if err := os.WriteFile(*md, []byte(markdown(r, chart)), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "benchreport:", err)
			os.Exit(1)
		}
	}
}

func printSummary(w io.Writer, r *results) {
	fmt.Fprintf(w, "\nBenchmarks (%s, %s, %s cores, load %s -> %s)\n", r.meta["mode"], r.meta["cpu"], r.meta["nproc"], r.meta["loadavg_start"], r.meta["loadavg_end"])
	if sizes := r.sizes(); len(sizes) > 0 {
		fmt.Fprintf(w, "\nPlugin level, per pod (median %s; windows-aware, stock, ratio):\n", r.costUnit())
		for _, n := range sizes {
			for _, pod := range podSets {
				wa, _ := r.plugins.median(sweepName(n, pod, "windows-aware"), r.costUnit())
				st, _ := r.plugins.median(sweepName(n, pod, "stock"), r.costUnit())
				ratio, _ := r.sweepRatio(n, pod)
				fmt.Fprintf(w, "  %6d nodes  %-12s %12.0f %12.0f  %5.2fx\n", n, pod, wa, st, ratio)
			}
		}
	}
	if sizes := r.sizes(); len(sizes) > 0 {
		fmt.Fprintf(w, "\nWhole profiles, one cycle per pod (median %s; windows-aware, stock, ratio):\n", r.costUnit())
		for _, n := range sizes {
			for _, pod := range []string{"linux", "win2019", "mix"} {
				a, _ := r.plugins.median(profileName(n, pod, "windows-aware"), r.costUnit())
				s, _ := r.plugins.median(profileName(n, pod, "stock"), r.costUnit())
				ratio := 0.0
				if s > 0 {
					ratio = a / s
				}
				fmt.Fprintf(w, "  %6d nodes  %-12s %12.0f %12.0f  %5.2fx\n", n, pod, a, s, ratio)
			}
		}
	}
	p := r.roles()
	if p.wa != "" {
		fmt.Fprintln(w, "\nWhole scheduler (SchedulingThroughput average, pods/s):")
		for _, wl := range []string{p.wa, p.selectors, p.basic} {
			if v, n, ok := r.throughput(wl); ok {
				fmt.Fprintf(w, "  %-60s %8.1f  (%d run(s))\n", wl, v, n)
			}
		}
	}
	fmt.Fprintln(w, "\nTargets:")
	for _, t := range r.targets() {
		verdict := "MET"
		if !t.met {
			verdict = "MISSED"
		}
		fmt.Fprintf(w, "  %-6s %s: %s (target %s)\n", verdict, t.what, t.got, t.want)
	}
	for _, pl := range r.placements {
		if pl.Pods > 0 {
			fmt.Fprintf(w, "  placements %s: %d pods checked, %d misplaced, %d unbound\n", pl.Workload, pl.Pods, pl.Misplaced, pl.Unbound)
		}
	}
	fmt.Fprintln(w)
}
