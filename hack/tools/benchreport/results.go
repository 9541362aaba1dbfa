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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

// samples holds, per benchmark (name without "Benchmark" and GOMAXPROCS)
// and unit (as the benchmark reported it), the value of every run.
type samples map[string]map[string][]float64

// readBench reads a file of go test -bench output; a missing file is no
// results.
func readBench(path string) (samples, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return samples{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseBench(f, path)
}

// parseBench reads go test -bench output with benchfmt.
func parseBench(in io.Reader, fileName string) (samples, error) {
	s := samples{}
	r := benchfmt.NewReader(in, fileName)
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, rec
		case *benchfmt.Result:
			base, parts := rec.Name.Parts()
			name := string(base)
			for _, p := range parts {
				if p[0] == '/' {
					name += string(p)
				}
			}
			if s[name] == nil {
				s[name] = map[string][]float64{}
			}
			for _, v := range rec.Values {
				unit, value := v.Unit, v.Value
				if v.OrigUnit != "" {
					unit, value = v.OrigUnit, v.OrigValue
				}
				s[name][unit] = append(s[name][unit], value)
			}
		}
	}
	return s, r.Err()
}

// median is benchstat's center of the runs of name in unit.
func (s samples) median(name, unit string) (float64, bool) {
	vs := s[name][unit]
	if len(vs) == 0 {
		return 0, false
	}
	return benchmath.AssumeNothing.Summary(benchmath.NewSample(vs, &benchmath.DefaultThresholds), 0.95).Center, true
}

// ratio is the median of a over the median of b, in unit.
func (s samples) ratio(a, b, unit string) (float64, bool) {
	x, ok1 := s.median(a, unit)
	y, ok2 := s.median(b, unit)
	return x / y, ok1 && ok2 && y != 0
}

// names lists the benchmarks whose name starts with prefix, sorted.
func (s samples) names(prefix string) []string {
	var out []string
	for n := range s {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// placement is one workload's placement check, as test/bench/perf writes it.
type placement struct {
	Workload  string                    `json:"workload"`
	Pods      int                       `json:"pods"`
	Misplaced int                       `json:"misplaced"`
	Enforced  bool                      `json:"enforced"`
	Unbound   int                       `json:"unbound"`
	Placement map[string]map[string]int `json:"placement"`
	Errors    []string                  `json:"errors"`
}

func readPlacements(dir string) ([]placement, error) {
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

// readMeta reads the KEY=VALUE lines hack/bench.sh writes.
func readMeta(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			m[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return m, nil
}

// results is everything one hack/bench.sh run left.
type results struct {
	meta    map[string]string
	plugins samples
	perf    samples
	// tools are the webhook's, its inventory's and upgrade-plan's
	// benchmarks (admission.txt).
	tools      samples
	placements []placement
	benchstat  map[string]string // benchstat-<key>.txt
	profiles   []profile         // cpu-*.txt, by file name
	// cpu is the whole scheduler's CPU per pod and throughput by span, by
	// workload (cpu-perf-round-*.prof and .jsonl, cpu.go).
	cpu map[string]*perPod
}

// profile is pprof's table of one CPU profile hack/bench.sh took.
type profile struct {
	name string // the file name without cpu- and .txt
	text string
}

// readProfiles reads the pprof tables hack/bench.sh left (cpu-<kind>.txt
// of the plugin-level sweeps, cpu-perf-<workload>.txt of the whole
// scheduler), sorted by name.
func readProfiles(dir string) ([]profile, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "cpu-*.txt"))
	if err != nil {
		return nil, err
	}
	var out []profile
	for _, path := range paths {
		base := filepath.Base(path)
		if strings.HasSuffix(base, ".bench.txt") {
			continue // the benchmark's own output
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		out = append(out, profile{strings.TrimSuffix(strings.TrimPrefix(base, "cpu-"), ".txt"), string(data)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

func load(dir string) (*results, error) {
	r := &results{benchstat: map[string]string{}}
	var err error
	if r.meta, err = readMeta(filepath.Join(dir, "meta.env")); err != nil {
		return nil, err
	}
	if r.plugins, err = readBench(filepath.Join(dir, "plugins.txt")); err != nil {
		return nil, err
	}
	if r.perf, err = readBench(filepath.Join(dir, "perf.txt")); err != nil {
		return nil, err
	}
	if r.tools, err = readBench(filepath.Join(dir, "admission.txt")); err != nil {
		return nil, err
	}
	if r.placements, err = readPlacements(filepath.Join(dir, "perf")); err != nil {
		return nil, err
	}
	if r.profiles, err = readProfiles(dir); err != nil {
		return nil, err
	}
	if r.cpu, err = loadCPU(dir); err != nil {
		return nil, err
	}
	for _, key := range benchstatKeys {
		if data, err := os.ReadFile(filepath.Join(dir, "benchstat-"+key.key+".txt")); err == nil {
			r.benchstat[key.key] = string(data)
		}
	}
	return r, nil
}
