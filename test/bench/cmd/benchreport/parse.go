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
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// samples holds, per benchmark name and unit, the value of each run
// (go test -count).
type samples map[string]map[string][]float64

var procSuffix = regexp.MustCompile(`-\d+$`)

// parseBench reads `go test -bench` output: lines of
// "BenchmarkName-N  iterations  value unit  value unit ...".
func parseBench(path string) (samples, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := samples{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(fields[1]); err != nil {
			continue
		}
		name := procSuffix.ReplaceAllString(fields[0], "")
		if out[name] == nil {
			out[name] = map[string][]float64{}
		}
		for i := 2; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				break
			}
			out[name][fields[i+1]] = append(out[name][fields[i+1]], v)
		}
	}
	return out, sc.Err()
}

// median of the runs of name's unit, and whether there were any.
func (s samples) median(name, unit string) (float64, bool) {
	vs := s[name][unit]
	if len(vs) == 0 {
		return 0, false
	}
	return median(vs), true
}

// spread returns the smallest and largest run.
func (s samples) spread(name, unit string) (lo, hi float64) {
	vs := s[name][unit]
	if len(vs) == 0 {
		return 0, 0
	}
	lo, hi = vs[0], vs[0]
	for _, v := range vs {
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi
}

func (s samples) runs(name string) int {
	n := 0
	for _, vs := range s[name] {
		n = max(n, len(vs))
	}
	return n
}

func median(vs []float64) float64 {
	c := append([]float64(nil), vs...)
	sort.Float64s(c)
	if len(c)%2 == 1 {
		return c[len(c)/2]
	}
	return (c[len(c)/2-1] + c[len(c)/2]) / 2
}

// dataItem is one entry of the JSON file scheduler_perf writes.
type dataItem struct {
	Data   map[string]float64 `json:"data"`
	Unit   string             `json:"unit"`
	Labels map[string]string  `json:"labels"`
}

// perfResults holds the scheduler_perf data items of every run, keyed by
// workload and by the labels that tell items apart.
type perfResults struct {
	files int
	// items[workload][key] = one data item per run.
	items map[string]map[string][]dataItem
	// seq lists the workloads in the order the first file has them: the
	// order the harness ran them in.
	seq []string
}

// order lists the workloads in the order they ran.
func (r *perfResults) order() []string { return r.seq }

// workloadOf turns "BenchmarkPerfScheduling/WindowsMix/5000Nodes_10000Pods_WindowsAware/namespace-2"
// into "WindowsMix/5000Nodes_10000Pods_WindowsAware".
func workloadOf(name string) string {
	parts := strings.Split(name, "/")
	if len(parts) >= 3 && strings.HasPrefix(parts[0], "Benchmark") {
		parts = parts[1:]
	}
	if len(parts) >= 3 && strings.HasPrefix(parts[len(parts)-1], "namespace-") {
		parts = parts[:len(parts)-1]
	}
	return strings.Join(parts, "/")
}

func itemKey(labels map[string]string) string {
	var keys []string
	for k, v := range labels {
		if k == "Name" || v == "not applicable" {
			continue
		}
		keys = append(keys, k+"="+v)
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

func parsePerf(dir string) (*perfResults, error) {
	files, err := filepath.Glob(filepath.Join(dir, "BenchmarkPerfScheduling_benchmark_*.json"))
	if err != nil {
		return nil, err
	}
	r := &perfResults{items: map[string]map[string][]dataItem{}}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var doc struct {
			DataItems []dataItem `json:"dataItems"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		r.files++
		for _, it := range doc.DataItems {
			w := workloadOf(it.Labels["Name"])
			if r.files == 1 && it.Labels["Metric"] == "SchedulingThroughput" {
				r.seq = append(r.seq, "`"+w+"`")
			}
			if r.items[w] == nil {
				r.items[w] = map[string][]dataItem{}
			}
			k := itemKey(it.Labels)
			r.items[w][k] = append(r.items[w][k], it)
		}
	}
	return r, nil
}

// value is the median over runs of one bucket of one item.
func (r *perfResults) value(workload, key, bucket string) (float64, int, bool) {
	items := r.items[workload][key]
	var vs []float64
	for _, it := range items {
		if v, ok := it.Data[bucket]; ok {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return 0, 0, false
	}
	return median(vs), len(vs), true
}

func (r *perfResults) all(workload, key, bucket string) []float64 {
	var vs []float64
	for _, it := range r.items[workload][key] {
		if v, ok := it.Data[bucket]; ok {
			vs = append(vs, v)
		}
	}
	return vs
}

// workloads lists the workloads with a throughput, sorted.
func (r *perfResults) workloads() []string {
	var ws []string
	for w, items := range r.items {
		if _, ok := items["Metric=SchedulingThroughput"]; ok {
			ws = append(ws, w)
		}
	}
	sort.Strings(ws)
	return ws
}

// placement is one workload's placement check (test/bench/perf).
type placement struct {
	Workload  string                    `json:"workload"`
	Pods      int                       `json:"pods"`
	Want      int                       `json:"want"`
	Misplaced int                       `json:"misplaced"`
	Unbound   int                       `json:"unbound"`
	Placement map[string]map[string]int `json:"placement"`
	Errors    []string                  `json:"errors"`
}

func parsePlacements(dir string) ([]placement, error) {
	files, err := filepath.Glob(filepath.Join(dir, "placements_*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []placement
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var ps []placement
		if err := json.Unmarshal(data, &ps); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out = append(out, ps...)
	}
	return out, nil
}

// readMeta reads KEY=VALUE lines.
func readMeta(path string) map[string]string {
	m := map[string]string{}
	data, err := os.ReadFile(path)
	if err != nil {
		return m
	}
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if ok {
			m[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return m
}

// cpuProfile is pprof's table (-top) of one CPU profile: the share of the
// samples each function accounts for, itself (flat) and with its callees
// (cum), keyed by the function's name after its package path
// ("windowsaware.nodeOS", "framework.(*CycleState).Read").
type cpuProfile struct {
	total     string // "Total samples = ..." as pprof prints it
	flat, cum map[string]float64
}

var pprofRow = regexp.MustCompile(`^\s*\S+\s+([\d.]+)%\s+[\d.]+%\s+\S+\s+([\d.]+)%\s+(.+?)(?:\s+\(inline\))?\s*$`)

// parseProfiles reads the cpu-<kind>.txt files hack/bench.sh leaves.
func parseProfiles(dir string) map[string]*cpuProfile {
	out := map[string]*cpuProfile{}
	files, _ := filepath.Glob(filepath.Join(dir, "cpu-*.txt"))
	for _, f := range files {
		kind := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "cpu-"), ".txt")
		if strings.HasSuffix(kind, ".bench") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		p := &cpuProfile{flat: map[string]float64{}, cum: map[string]float64{}}
		for _, line := range strings.Split(string(data), "\n") {
			if i := strings.Index(line, "Total samples = "); i >= 0 {
				p.total = strings.TrimSpace(line[i+len("Total samples = "):])
				continue
			}
			m := pprofRow.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			name := m[3]
			if i := strings.LastIndex(name, "/"); i >= 0 {
				name = name[i+1:]
			}
			flat, _ := strconv.ParseFloat(m[1], 64)
			cum, _ := strconv.ParseFloat(m[2], 64)
			// A function inlined in several places is listed once per
			// place; add them up.
			p.flat[name] += flat
			p.cum[name] = max(p.cum[name], cum)
		}
		if len(p.cum) > 0 {
			out[kind] = p
		}
	}
	return out
}

// loadSample is one reading of the 1-minute load average during a run.
type loadSample struct {
	load  float64
	phase string
}

// parseLoad reads load.txt ("<unix time> <load> <phase>" lines).
func parseLoad(path string) []loadSample {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []loadSample
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		v, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			continue
		}
		out = append(out, loadSample{v, f[2]})
	}
	return out
}
