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
	"io"
	"math"
	"path/filepath"
	"regexp"
	"sort"
)

// minWindow is the shortest measurement, in seconds, whose throughput
// average the table reads without a flag. The harness averages one rate a
// second, and the first and last seconds of a run are partly filled: in a
// run of a second or two they are most of the average, which then says
// more about where the edges fell than about the scheduler.
const minWindow = 5

var variantPart = regexp.MustCompile(`/plugins=[^/]+`)

// upstreamRow is one of upstream's workloads, both variants.
type upstreamRow struct {
	name                       string
	stock, wa                  float64 // throughput averages, pods/s (medians of the runs)
	avg, span, cpu             float64 // windows-aware / stock by each measure; NaN when unknown
	window                     float64 // the shorter variant's measurement, s
	short                      bool
	haveAvg, haveSpan, haveCPU bool
}

// upstreamRows reads a hack/upstream.sh bench results directory.
func upstreamRows(dir string) ([]upstreamRow, error) {
	bench, err := readBench(filepath.Join(dir, "upstream.txt"))
	if err != nil {
		return nil, err
	}
	cpu, err := loadCPU(dir)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for n := range bench {
		names[variantPart.ReplaceAllString(n, "")] = true
	}
	for n := range cpu {
		names[variantPart.ReplaceAllString(n, "")] = true
	}
	variant := func(name, v string) string {
		// Upstream/<package>/plugins=<variant>/<case>/<workload>
		parts := regexp.MustCompile(`^([^/]+/[^/]+)/(.*)$`).FindStringSubmatch(name)
		if parts == nil {
			return name
		}
		return parts[1] + "/plugins=" + v + "/" + parts[2]
	}
	var rows []upstreamRow
	for n := range names {
		st, wa := variant(n, "stock"), variant(n, "windows-aware")
		r := upstreamRow{name: n}
		var ok1, ok2 bool
		r.stock, ok1 = bench.median(st, throughput)
		r.wa, ok2 = bench.median(wa, throughput)
		if ok1 && ok2 && r.stock > 0 {
			r.avg, r.haveAvg = r.wa/r.stock, true
		}
		r.span, r.haveSpan = spanRatio(cpu, wa, st)
		r.cpu, r.haveCPU = cpuRatio(cpu, wa, st)
		r.window = math.Inf(1)
		for _, v := range []string{st, wa} {
			if cpu[v] != nil {
				if m, ok := median(cpu[v].win); ok {
					r.window = min(r.window, m)
				}
			}
		}
		if math.IsInf(r.window, 1) {
			r.window = 0
		}
		r.short = r.window < minWindow
		if !r.haveAvg && !r.haveSpan && !r.haveCPU {
			continue
		}
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].name < rows[j].name })
	return rows, nil
}

// printUpstream prints each workload's throughput average in both
// variants and windows-aware's ratio to stock by three measures: upstream's
// average, the throughput over the span of the measured pods, and the
// scheduler's CPU per pod (lower is better; cpu.go says which samples
// count). A run shorter than minWindow is flagged: its average is edges.
func printUpstream(w io.Writer, dir string) error {
	rows, err := upstreamRows(dir)
	if err != nil {
		return err
	}
	f := func(ok bool, v float64, format string) string {
		if !ok {
			return "–"
		}
		return fmt.Sprintf(format, v)
	}
	fmt.Fprintf(w, "%-80s %9s %9s %9s %9s %9s %8s %s\n", "workload (pods/s; ratios windows-aware / stock)", "stock", "w-aware", "by avg", "by span", "CPU/pod", "window", "")
	var logs [3]float64
	var ns [3]int
	for _, r := range rows {
		flag := ""
		if r.short {
			flag = fmt.Sprintf("short: under %d s, the average is edges", minWindow)
		}
		fmt.Fprintf(w, "%-80s %9s %9s %9s %9s %9s %8s %s\n", r.name,
			f(r.haveAvg, r.stock, "%.1f"), f(r.haveAvg, r.wa, "%.1f"),
			f(r.haveAvg, r.avg, "%.3f"), f(r.haveSpan, r.span, "%.3f"), f(r.haveCPU, r.cpu, "%.3f"),
			f(r.window > 0, r.window, "%.1fs"), flag)
		for i, x := range []struct {
			ok bool
			v  float64
		}{{r.haveAvg && !r.short, r.avg}, {r.haveSpan, r.span}, {r.haveCPU, r.cpu}} {
			if x.ok && x.v > 0 {
				logs[i] += math.Log(x.v)
				ns[i]++
			}
		}
	}
	geo := func(i int) string {
		if ns[i] == 0 {
			return "–"
		}
		return fmt.Sprintf("%.3f", math.Exp(logs[i]/float64(ns[i])))
	}
	fmt.Fprintf(w, "%-80s %9s %9s %9s %9s %9s\n", "geomean (by avg: runs not flagged short)", "", "", geo(0), geo(1), geo(2))
	return nil
}
