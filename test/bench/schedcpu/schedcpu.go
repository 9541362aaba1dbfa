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

// Package schedcpu lets a CPU profile of a scheduler_perf process say how
// much CPU each workload's scheduler spent per pod, and records what the
// harness measured over the span of the measured pods.
//
// The harness runs every workload's scheduler, API server and itself in
// one process. Label, called from the harness's pre-run hook, puts the
// pprof label "workload" on the goroutine that is about to start the
// workload's API server and scheduler, so every goroutine they start
// carries it; hack/tools/benchreport sums the profile's samples of
// scheduling work by that label. Record, called when the workload is done
// and before the harness resets the scheduler's metrics, writes the
// scheduler's count of pods scheduled and the span of the measured pods.
package schedcpu

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/component-base/metrics/testutil"
)

// LabelKey is the pprof label that names a workload (hack/tools/benchreport
// reads it).
const LabelKey = "workload"

// RecordsEnv names the file Record appends to (hack/bench.sh and
// hack/upstream.sh put it beside the process's CPU profile); without it,
// workloads_<time>.jsonl in -data-items-dir.
const RecordsEnv = "SCHEDCPU_RECORDS"

// Label labels the calling goroutine, and every goroutine it starts from
// now on, with the workload's name. The harness runs each workload in a
// goroutine of its own, which ends with the workload.
func Label(workload string) {
	pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels(LabelKey, workload)))
}

// record is one line of the records file (hack/tools/benchreport's
// workloadRecord).
type record struct {
	Workload    string  `json:"workload"`
	Scheduled   int     `json:"scheduled"`
	SpanPods    int     `json:"spanPods"`
	SpanSeconds float64 `json:"spanSeconds"`
	Window      float64 `json:"window"`
	// BindGuardChecks are the binds BindGuard checked, whatever it found
	// (windows_aware_bind_guard_checks_total summed over its results):
	// each is one list of the node's pods at most. Zero where no profile
	// enables it.
	BindGuardChecks int `json:"bindGuardChecks,omitempty"`
	// PodLists are the LIST requests for pods the in-process API server
	// served (apiserver_request_total{verb="LIST",resource="pods"}), from
	// every client: the guard's reads, counted by the API server, over
	// those of a workload without the guard.
	PodLists int `json:"podLists,omitempty"`
}

var (
	mu          sync.Mutex
	defaultPath string
)

// Record appends the workload's record: the pods its scheduler scheduled
// (every profile's), and the span of its measured pods from the progress
// file the harness wrote for it in -data-items-dir (topic as given to the
// harness). Call it from a cleanup the workload registered after the
// harness's own, so that it runs before the harness resets the metrics.
//
// Without RecordsEnv and -data-items-dir, where a run keeps its results,
// it records nothing.
func Record(workload, topic string) error {
	dir := dataItemsDir()
	if dir == "" && os.Getenv(RecordsEnv) == "" {
		return nil
	}
	counts, err := testutil.GetCounterValuesFromGatherer(legacyregistry.DefaultGatherer, "scheduler_schedule_attempts_total", nil, "result")
	if err != nil {
		return err
	}
	r := record{Workload: workload, Scheduled: int(counts["scheduled"])}
	if r.BindGuardChecks, r.PodLists, err = apiReads(); err != nil {
		return err
	}
	if dat := progressFile(dir, workload, topic); dat != "" {
		if r.SpanPods, r.SpanSeconds, r.Window, err = span(dat); err != nil {
			return err
		}
	}
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	mu.Lock()
	defer mu.Unlock()
	path := os.Getenv(RecordsEnv)
	if path == "" {
		if defaultPath == "" { // dir is set: checked above
			defaultPath = filepath.Join(dir, "workloads_"+time.Now().UTC().Format("2006-01-02T15-04-05.000")+".jsonl")
		}
		path = defaultPath
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// apiReads are the counters of the API reads a bind may make: BindGuard's
// checks and the API server's pod LISTs, each summed over all its series
// (testutil's helpers key them by one label, which would drop series that
// differ in another). A counter not registered (no BindGuard in the
// process) reads as zero.
func apiReads() (guardChecks, podLists int, err error) {
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		return 0, 0, err
	}
	sum := func(name string, match map[string]string) int {
		total := 0.0
		for _, f := range families {
			if f.GetName() != name {
				continue
			}
			for _, m := range f.GetMetric() {
				if testutil.LabelsMatch(m, match) && m.GetCounter() != nil {
					total += m.GetCounter().GetValue()
				}
			}
		}
		return int(total)
	}
	return sum("windows_aware_bind_guard_checks_total", nil),
		sum("apiserver_request_total", map[string]string{"verb": "LIST", "resource": "pods"}), nil
}

func dataItemsDir() string {
	if f := flag.Lookup("data-items-dir"); f != nil && f.Value.String() != "" {
		return f.Value.String()
	}
	return ""
}

// progressFile is the newest .dat the harness wrote for the workload:
// <test case>_<workload>_<topic>_<run>.dat, the last two elements of the
// test's name. Two variants of a workload run in one process write the
// same name, which is why its figures are read as soon as it is written.
func progressFile(dir, workload, topic string) string {
	parts := strings.Split(workload, "/")
	if dir == "" || len(parts) < 2 {
		return ""
	}
	prefix := strings.ReplaceAll(parts[len(parts)-2]+"_"+parts[len(parts)-1]+"_"+topic+"_", "/", "_")
	matches, _ := filepath.Glob(filepath.Join(dir, glob(prefix)+"*.dat"))
	newest, when := "", time.Time{}
	for _, m := range matches {
		// The workload's own name may be a prefix of another's.
		if strings.Contains(strings.TrimPrefix(filepath.Base(m), prefix), "_") {
			continue
		}
		if st, err := os.Stat(m); err == nil && st.ModTime().After(when) {
			newest, when = m, st.ModTime()
		}
	}
	return newest
}

// glob escapes the glob metacharacters of s.
func glob(s string) string {
	r := strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `\`, `\\`)
	return r.Replace(s)
}

// span reads the harness's progress file: a line a throughput sample,
// "<seconds since the first sample>s <scheduled> <attempts> <measured pods
// bound> ...". The harness takes its first sample once a measured pod is
// bound and keeps it out of the file, so the pods bound between the first
// and last line over the time between them is the throughput over whole
// sampled seconds, with neither partly filled edge; window is the last
// line's time, the measurement's length give or take a second.
func span(path string) (pods int, seconds, window float64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, 0, err
	}
	defer f.Close()
	var first, last struct {
		t float64
		n int
	}
	lines := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 4 {
			continue
		}
		t, err1 := strconv.ParseFloat(strings.TrimSuffix(fields[0], "s"), 64)
		n, err2 := strconv.Atoi(fields[3])
		if err1 != nil || err2 != nil {
			return 0, 0, 0, fmt.Errorf("%s: line %q", path, sc.Text())
		}
		if lines == 0 {
			first.t, first.n = t, n
		}
		last.t, last.n = t, n
		lines++
	}
	if err := sc.Err(); err != nil {
		return 0, 0, 0, err
	}
	if lines >= 2 && last.t > first.t {
		// The file's times have a tenth of a second; so does the span.
		pods, seconds = last.n-first.n, math.Round((last.t-first.t)*10)/10
	}
	return pods, seconds, last.t, nil
}
