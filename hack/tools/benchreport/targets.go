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

package main

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// The project's performance targets.
const (
	targetSweepRatio   = 0.2 // windows-aware sweep / stock sweep, at most
	targetLinuxRatio   = 0.4 // the same for Linux pods, at every size, at most
	targetPassAllocs   = 0   // Filter allocations per passing node, at most
	targetRejectAllocs = 1   // Filter allocations per rejected node, at most
	targetCPUPerPod    = 0.4 // the scheduler's CPU per pod over the stock profile's with selectors, at most
	targetVsSelectors  = 1.5 // throughput over the stock profile with selectors, at least
	targetVsPlain      = 1.0 // throughput over the stock profile without selectors, at least
	targetVsBasic      = 1.0 // throughput over SchedulingBasic, at least

	targetPreEnqueueNs     = 1000 // PreEnqueue per pod with a warm resolution cache, under
	targetPreEnqueueAllocs = 0    // ... and its allocations per pod
	targetResolvedVsTags   = 0.98 // throughput with resolution on (warm cache) over the tag rules alone, at least
	targetSlowVsFast       = 0.95 // known-image pods' throughput beside new-image pods and a slow registry over the same with a fast one, at least
)

// preEnqueueTarget is the PreEnqueue benchmark the target is read from: a
// pod with one image, all its images resolved before.
const preEnqueueTarget = "PreEnqueue/hit/1-images"

const throughput = "SchedulingThroughput/Average"

// target is one target, measured.
type target struct {
	what, want, got string
	met             bool
}

func (t target) verdict() string {
	if t.met {
		return "met"
	}
	return "MISSED"
}

// costUnit is the process's CPU time per op when the benchmarks report it
// (steadier on a shared machine than wall time), else wall time.
func (r *results) costUnit() string {
	for _, units := range r.plugins {
		if _, ok := units["cpu-ns/op"]; ok {
			return "cpu-ns/op"
		}
	}
	return "ns/op"
}

var sweepSize = regexp.MustCompile(`^Sweep/nodes=(\d+)/`)

// sizes are the node counts the sweeps ran at, ascending.
func (r *results) sizes() []int {
	seen := map[int]bool{}
	for name := range r.plugins {
		if m := sweepSize.FindStringSubmatch(name); m != nil {
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

// headline is the size the plugin-level target is read at: 5,000 nodes,
// else the largest.
func (r *results) headline() int {
	sizes := r.sizes()
	for _, n := range sizes {
		if n == 5000 {
			return n
		}
	}
	if len(sizes) == 0 {
		return 0
	}
	return sizes[len(sizes)-1]
}

func sweep(n int, pod, approach string) string {
	return fmt.Sprintf("Sweep/nodes=%d/pod=%s/approach=%s", n, pod, approach)
}

// comparison is a whole-scheduler throughput ratio of the windows-aware
// workload over another one of the same size.
type comparison struct {
	suffix, what string
	target       float64
}

func comparisons(size string) []comparison {
	return []comparison{
		{"WindowsMix/" + size + "_StockSelectors", "stock profile, the same pods with hand-written selectors", targetVsSelectors},
		{"WindowsMix/" + size + "_StockNoSelectors", "stock profile, the same pods with no selectors (misplaces the Windows pods)", targetVsPlain},
		{"SchedulingBasic/" + size, "stock profile, upstream's SchedulingBasic", targetVsBasic},
	}
}

// perfSizes are the sizes of the windows-aware whole-scheduler workloads.
func (r *results) perfSizes() []string {
	var out []string
	for _, name := range r.perf.names("PerfScheduling/WindowsMix/") {
		if size, ok := strings.CutSuffix(strings.TrimPrefix(name, "PerfScheduling/WindowsMix/"), "_WindowsAware"); ok {
			out = append(out, size)
		}
	}
	return out
}

func (r *results) targets() []target {
	var ts []target
	if n := r.headline(); n > 0 {
		if x, ok := r.plugins.ratio(sweep(n, "mix", "windows-aware"), sweep(n, "mix", "stock"), r.costUnit()); ok {
			ts = append(ts, target{fmt.Sprintf("plugin level: windows-aware / NodeAffinity+TaintToleration, pod mix, %d nodes (%s)", n, r.costUnit()),
				fmt.Sprintf("≤ %.1fx", targetSweepRatio), fmt.Sprintf("%.2fx", x), x <= targetSweepRatio})
		}
	}
	// Linux pods are most pods of a real cluster: their ratio must hold at
	// every size, not grow with it.
	for _, n := range r.sizes() {
		if x, ok := r.plugins.ratio(sweep(n, "linux", "windows-aware"), sweep(n, "linux", "stock"), r.costUnit()); ok {
			ts = append(ts, target{fmt.Sprintf("plugin level: windows-aware / NodeAffinity+TaintToleration, Linux pods, %d nodes (%s)", n, r.costUnit()),
				fmt.Sprintf("≤ %.1fx", targetLinuxRatio), fmt.Sprintf("%.2fx", x), x <= targetLinuxRatio})
		}
	}
	pass, reject, found := 0.0, 0.0, false
	for _, name := range r.plugins.names("Sweep/") {
		if !strings.HasSuffix(name, "/approach=windows-aware") {
			continue
		}
		for _, v := range r.plugins[name]["allocs/pass-node"] {
			pass, found = max(pass, v), true
		}
		for _, v := range r.plugins[name]["allocs/reject-node"] {
			reject = max(reject, v)
		}
	}
	if found {
		ts = append(ts,
			target{"plugin level: Filter allocations for a node that passes (worst pod and size)", fmt.Sprint(targetPassAllocs), fmt.Sprint(pass), pass <= targetPassAllocs},
			target{"plugin level: Filter allocations for a node that is rejected (worst pod and size)", fmt.Sprintf("≤ %d", targetRejectAllocs), fmt.Sprint(reject), reject <= targetRejectAllocs})
	}
	for _, size := range r.perfSizes() {
		wa := "PerfScheduling/WindowsMix/" + size + "_WindowsAware"
		// What the plugins change, read from the CPU profile: on a few
		// cores the harness and the API server bound the throughput.
		if x, ok := cpuRatio(r.cpu, wa, "PerfScheduling/WindowsMix/"+size+"_StockSelectors"); ok {
			ts = append(ts, target{fmt.Sprintf("whole scheduler, %s: windows-aware scheduling CPU per pod / stock profile, the same pods with hand-written selectors", size),
				fmt.Sprintf("≤ %.1fx", targetCPUPerPod), fmt.Sprintf("%.2fx", x), x <= targetCPUPerPod})
		}
		for _, c := range comparisons(size) {
			if x, ok := r.perf.ratio(wa, "PerfScheduling/"+c.suffix, throughput); ok {
				ts = append(ts, target{fmt.Sprintf("whole scheduler, %s: windows-aware throughput / %s", size, c.what),
					fmt.Sprintf("≥ %.1fx", c.target), fmt.Sprintf("%.2fx", x), x >= c.target})
			}
		}
	}
	ts = append(ts, r.resolutionTargets()...)
	ts = append(ts, r.toolTargets()...)
	bad, checked := 0, 0
	for _, p := range r.placements {
		if p.Enforced {
			bad += p.Misplaced + p.Unbound + len(p.Errors)
			checked += p.Pods
		}
	}
	if checked > 0 {
		ts = append(ts, target{"whole scheduler: pods misplaced, unbound or missing (all runs, every workload but StockNoSelectors)",
			"0", fmt.Sprintf("%d of %d", bad, checked), bad == 0})
	}
	return ts
}

// resolutionSizes are the sizes of the whole-scheduler workloads with
// image resolution.
func (r *results) resolutionSizes() []string {
	var out []string
	for _, name := range r.perf.names("PerfResolution/WindowsMixResolved/") {
		out = append(out, strings.TrimPrefix(name, "PerfResolution/WindowsMixResolved/"))
	}
	return out
}

// resolutionTargets are the targets of image resolution: PreEnqueue's cost
// with a warm cache, and the whole scheduler's throughput with resolution
// on, against the tag rules alone and beside a slow registry.
func (r *results) resolutionTargets() []target {
	var ts []target
	if ns, ok := r.plugins.median(preEnqueueTarget, "ns/op"); ok {
		ts = append(ts, target{"plugin level: PreEnqueue with a warm resolution cache, pod with one image (ns/op)",
			fmt.Sprintf("< %d", targetPreEnqueueNs), fmt.Sprintf("%.0f", ns), ns < targetPreEnqueueNs})
	}
	worst, found := 0.0, false
	for _, name := range r.plugins.names("PreEnqueue/") {
		for _, v := range r.plugins[name]["allocs/op"] {
			worst, found = max(worst, v), true
		}
	}
	if found {
		ts = append(ts, target{"plugin level: PreEnqueue allocations per pod (worst case)",
			fmt.Sprint(targetPreEnqueueAllocs), fmt.Sprint(worst), worst <= targetPreEnqueueAllocs})
	}
	for _, size := range r.resolutionSizes() {
		resolved := "PerfResolution/WindowsMixResolved/" + size
		if x, ok := r.perf.ratio(resolved, "PerfResolution/WindowsMixTags/"+size, throughput); ok {
			ts = append(ts, target{fmt.Sprintf("whole scheduler, %s: throughput with image resolution (warm cache) / tag rules alone", size),
				fmt.Sprintf("≥ %.2fx", targetResolvedVsTags), fmt.Sprintf("%.2fx", x), x >= targetResolvedVsTags})
		}
		if x, ok := r.perf.ratio("PerfResolution/WindowsMixSlowRegistry/"+size, "PerfResolution/WindowsMixNewImages/"+size, throughput); ok {
			ts = append(ts, target{fmt.Sprintf("whole scheduler, %s: throughput of pods with known images beside 10%% new-image pods, a 200 ms registry / a fast one", size),
				fmt.Sprintf("≥ %.2fx", targetSlowVsFast), fmt.Sprintf("%.2fx", x), x >= targetSlowVsFast})
		}
	}
	return ts
}
