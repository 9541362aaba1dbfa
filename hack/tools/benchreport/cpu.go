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
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	pprofile "github.com/google/pprof/profile"
)

// The scheduler's own CPU per pod.
//
// The harness runs the scheduler, the API server and itself in one
// process, on the same cores, so a workload's throughput tells what the
// whole process managed, not what the scheduling cost. Each whole-scheduler
// run is CPU-profiled (go test -cpuprofile), each workload's goroutines
// carry the pprof label workloadLabel (test/bench/schedcpu sets it before
// the harness starts the workload's scheduler and API server, and every
// goroutine they start inherits it), and the samples of scheduling work are
// summed per workload and divided by the pods the workload's scheduler
// scheduled.
//
// A sample is scheduling work when a frame of its stack is one of
// schedulingRoots (the function or a closure of it), or when its goroutine
// is a worker of the scheduler's parallelizer: a frame parallelWorker
// whose callee lies under schedulerPackage. That is the scheduling cycle
// (one pod at a time), the Filter, Score and preemption pieces the
// parallelizer spreads over the cores, and the plugins' work when a pod or
// an event arrives (PreEnqueue, queueing hints). Not counted: the binding
// cycle and its API calls (a goroutine of its own, started by
// runBindingCycle), the API server, the informers, the harness; except
// BindGuard's PreBind, the one plugin of this project in the binding
// cycle: its read of the node's pods is work the scheduler adds to each
// bind, so its frames are counted (the client's side of the read: the
// request and the decoding of the list; the API server's side runs in the
// API server's goroutines). Where no profile enables BindGuard its frames
// hold no samples, and nothing changes.

// workloadLabel is the pprof label naming a workload (test/bench/schedcpu).
const workloadLabel = "workload"

// schedulingRoots are the functions whose samples, callees included, are
// scheduling work. The page benchreport writes lists them (cpuNote).
var schedulingRoots = []string{
	// The scheduling cycle: next pod, PreFilter, Filter, Score, Reserve,
	// Permit, and PostFilter (preemption's dry run) when the pod fits nowhere.
	"k8s.io/kubernetes/pkg/scheduler.(*Scheduler).ScheduleOne",
	// The framework's extension points, wherever they are called from
	// (asynchronous preemption runs Filter outside the cycle).
	"k8s.io/kubernetes/pkg/scheduler/framework/runtime.(*frameworkImpl).RunPreFilterPlugins",
	"k8s.io/kubernetes/pkg/scheduler/framework/runtime.(*frameworkImpl).RunFilterPlugins",
	"k8s.io/kubernetes/pkg/scheduler/framework/runtime.(*frameworkImpl).RunFilterPluginsWithNominatedPods",
	"k8s.io/kubernetes/pkg/scheduler/framework/runtime.(*frameworkImpl).RunPostFilterPlugins",
	"k8s.io/kubernetes/pkg/scheduler/framework/runtime.(*frameworkImpl).RunPreScorePlugins",
	"k8s.io/kubernetes/pkg/scheduler/framework/runtime.(*frameworkImpl).RunScorePlugins",
	// The plugins' work when a pod arrives and when an event may make a
	// pending pod schedulable.
	"k8s.io/kubernetes/pkg/scheduler/framework/runtime.(*frameworkImpl).RunPreEnqueuePlugins",
	"k8s.io/kubernetes/pkg/scheduler/backend/queue.(*PriorityQueue).isPodWorthRequeuing",
	// BindGuard: Reserve runs in the scheduling cycle (counted above
	// already), PreBind in the binding cycle, which is not.
	bindGuardPrefix + ".(*BindGuard).Reserve",
	bindGuardPrefix + ".(*BindGuard).PreBind",
}

// bindGuardPrefix is the package of the BindGuard plugin.
const bindGuardPrefix = "github.com/windows-aware/windows-aware/pkg/plugins/bindguard"

// parallelWorker is the goroutine workqueue.ParallelizeUntil starts for
// each worker; the scheduler's parallelizer runs its pieces in them. The
// harness starts such workers too (to create pods): only those whose
// piece lies under schedulerPackage count.
const (
	parallelWorker   = "k8s.io/client-go/util/workqueue.ParallelizeUntil.func1"
	schedulerPackage = "k8s.io/kubernetes/pkg/scheduler"
)

// isRoot says whether fn is a root or a closure of one (a closure is
// named after its function: Root.func1, Root.gowrap1, Root.func1.2).
func isRoot(fn string) bool {
	for _, r := range schedulingRoots {
		if fn == r || strings.HasPrefix(fn, r+".") {
			return true
		}
	}
	return false
}

// underScheduler says whether fn is a function of the scheduler's
// packages (k8s.io/kubernetes/pkg/scheduler and below).
func underScheduler(fn string) bool {
	rest, ok := strings.CutPrefix(fn, schedulerPackage)
	return ok && (strings.HasPrefix(rest, ".") || strings.HasPrefix(rest, "/"))
}

// frames are a sample's function names, leaf first, inlined calls included.
func frames(s *pprofile.Sample) []string {
	var out []string
	for _, loc := range s.Location {
		for _, line := range loc.Line {
			if line.Function != nil {
				out = append(out, line.Function.Name)
			}
		}
	}
	return out
}

// isSchedulingWork applies the rule above to a sample's frames, leaf first.
func isSchedulingWork(fns []string) bool {
	for i, fn := range fns {
		if isRoot(fn) {
			return true
		}
		// The callee of the worker's frame is the one before it.
		if fn == parallelWorker && i > 0 && underScheduler(fns[i-1]) {
			return true
		}
	}
	return false
}

// cpuUse is what one profile says of one workload.
type cpuUse struct {
	scheduling float64 // seconds of CPU in scheduling work
	total      float64 // seconds of CPU of all the workload's samples
}

// attribute sums a CPU profile's samples by the workload label: all of
// them, and those of scheduling work. Samples without the label (the
// harness between workloads, the runtime) are left out.
func attribute(p *pprofile.Profile) (map[string]cpuUse, error) {
	idx := -1
	for i, st := range p.SampleType {
		if st.Type == "cpu" && st.Unit == "nanoseconds" {
			idx = i
		}
	}
	if idx < 0 {
		return nil, fmt.Errorf("not a CPU profile: no cpu/nanoseconds sample type")
	}
	out := map[string]cpuUse{}
	for _, s := range p.Sample {
		ws := s.Label[workloadLabel]
		if len(ws) == 0 {
			continue
		}
		secs := float64(s.Value[idx]) / 1e9
		u := out[ws[0]]
		u.total += secs
		if isSchedulingWork(frames(s)) {
			u.scheduling += secs
		}
		out[ws[0]] = u
	}
	return out, nil
}

// workloadRecord is what test/bench/schedcpu writes when a workload ends
// (one JSON object a line, in workloads_*.jsonl beside the harness's JSON).
type workloadRecord struct {
	Workload string `json:"workload"` // the test's name, the pprof label's value
	// Scheduled is the scheduler's count of pods it scheduled in the
	// workload (scheduler_schedule_attempts_total{result="scheduled"}),
	// the measured pods and those the workload placed before them.
	Scheduled int `json:"scheduled"`
	// SpanPods and SpanSeconds are the measured pods bound between the
	// harness's first and last throughput sample and the time between
	// them (its .dat progress file); zero when it took fewer than two.
	SpanPods    int     `json:"spanPods"`
	SpanSeconds float64 `json:"spanSeconds"`
	// Window is the seconds from the first measured pod bound to the last
	// sample, about the length of the measurement.
	Window float64 `json:"window"`
	// BindGuardChecks are the binds BindGuard checked (each one list of
	// the node's pods at most), PodLists the pod LISTs the API server
	// served, from every client; zero where not recorded.
	BindGuardChecks int `json:"bindGuardChecks"`
	PodLists        int `json:"podLists"`
}

// perPod is one workload's figures over its runs, by workload name
// (without "Benchmark").
type perPod struct {
	cpu  []float64 // seconds of scheduling CPU per scheduled pod, one a run
	span []float64 // pods/s by span, one a run with two samples or more
	win  []float64 // measurement windows, s
	// guardChecks are BindGuard's checks per scheduled pod, one a run
	// that enabled it; podLists the API server's pod LISTs per scheduled
	// pod, one a run that recorded them.
	guardChecks []float64
	podLists    []float64
}

// readCPU reads the profiles hack/bench.sh and hack/upstream.sh leave
// (one per process, <name>.prof) with the workload records of the same
// process (<name>.jsonl, test/bench/schedcpu), and works out each
// workload's CPU per pod and throughput by span, one value a run.
func readCPU(profiles []string) (map[string]*perPod, error) {
	out := map[string]*perPod{}
	for _, path := range profiles {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		p, err := pprofile.Parse(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		uses, err := attribute(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		recs, err := readRecords(strings.TrimSuffix(path, ".prof") + ".jsonl")
		if err != nil {
			return nil, err
		}
		for _, rec := range recs {
			name := strings.TrimPrefix(rec.Workload, "Benchmark")
			pp := out[name]
			if pp == nil {
				pp = &perPod{}
				out[name] = pp
			}
			if u, ok := uses[rec.Workload]; ok && rec.Scheduled > 0 {
				pp.cpu = append(pp.cpu, u.scheduling/float64(rec.Scheduled))
			}
			if rec.SpanPods > 0 && rec.SpanSeconds > 0 {
				pp.span = append(pp.span, float64(rec.SpanPods)/rec.SpanSeconds)
			}
			if rec.Window > 0 {
				pp.win = append(pp.win, rec.Window)
			}
			if rec.Scheduled > 0 && rec.BindGuardChecks > 0 {
				pp.guardChecks = append(pp.guardChecks, float64(rec.BindGuardChecks)/float64(rec.Scheduled))
			}
			if rec.Scheduled > 0 && rec.PodLists > 0 {
				pp.podLists = append(pp.podLists, float64(rec.PodLists)/float64(rec.Scheduled))
			}
		}
	}
	return out, nil
}

func readRecords(path string) ([]workloadRecord, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []workloadRecord
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var r workloadRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, r)
	}
	return out, sc.Err()
}

// median of vs, or false.
func median(vs []float64) (float64, bool) {
	if len(vs) == 0 {
		return 0, false
	}
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	if n := len(s); n%2 == 1 {
		return s[n/2], true
	} else {
		return (s[n/2-1] + s[n/2]) / 2, true
	}
}

// printCPU prints how a profile's samples are attributed, by workload,
// with the pods of the records beside it when there are any: what the
// report's CPU per pod is made of, for anyone to check against pprof.
func printCPU(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	p, err := pprofile.Parse(f)
	f.Close()
	if err != nil {
		return err
	}
	uses, err := attribute(p)
	if err != nil {
		return err
	}
	pods := map[string]int{}
	recs := map[string]workloadRecord{}
	if rs, err := readRecords(strings.TrimSuffix(path, ".prof") + ".jsonl"); err == nil {
		for _, r := range rs {
			pods[r.Workload] = r.Scheduled
			recs[r.Workload] = r
		}
	}
	names := make([]string, 0, len(uses))
	for n := range uses {
		names = append(names, n)
	}
	sort.Strings(names)
	// The last two columns are the API reads a pod's bind made: BindGuard's
	// checks and the API server's pod LISTs (every client's), per pod.
	fmt.Fprintf(w, "%-90s %12s %12s %8s %12s %12s %12s\n", "workload", "sched CPU s", "all CPU s", "pods", "sched ms/pod", "guard/pod", "LISTs/pod")
	for _, n := range names {
		u, perPod, guard, lists := uses[n], "–", "–", "–"
		if pods[n] > 0 {
			perPod = fmt.Sprintf("%.3f", u.scheduling/float64(pods[n])*1e3)
			guard = fmt.Sprintf("%.3f", float64(recs[n].BindGuardChecks)/float64(pods[n]))
			lists = fmt.Sprintf("%.3f", float64(recs[n].PodLists)/float64(pods[n]))
		}
		fmt.Fprintf(w, "%-90s %12.2f %12.2f %8d %12s %12s %12s\n", n, u.scheduling, u.total, pods[n], perPod, guard, lists)
	}
	return nil
}

// loadCPU reads the whole-scheduler profiles of a hack/bench.sh or
// hack/upstream.sh run (cpu-perf-round-*.prof with their records).
func loadCPU(dir string) (map[string]*perPod, error) {
	profiles, err := filepath.Glob(filepath.Join(dir, "cpu-perf-round-*.prof"))
	if err != nil || len(profiles) == 0 {
		return map[string]*perPod{}, err
	}
	sort.Strings(profiles)
	return readCPU(profiles)
}

// cpuRatio is the median scheduling CPU per pod of a over b's.
func cpuRatio(c map[string]*perPod, a, b string) (float64, bool) {
	if c[a] == nil || c[b] == nil {
		return 0, false
	}
	x, ok1 := median(c[a].cpu)
	y, ok2 := median(c[b].cpu)
	return x / y, ok1 && ok2 && y > 0
}

// spanRatio is the same of the throughput by span.
func spanRatio(c map[string]*perPod, a, b string) (float64, bool) {
	if c[a] == nil || c[b] == nil {
		return 0, false
	}
	x, ok1 := median(c[a].span)
	y, ok2 := median(c[b].span)
	return x / y, ok1 && ok2 && y > 0
}
