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
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pprofile "github.com/google/pprof/profile"
)

// synthetic builds a CPU profile whose samples have the given stacks
// (function names, leaf first), values (ms) and workload labels; the
// stack's first location holds two lines, an inlined call and its caller,
// when a name holds "|" ("inlined|caller").
func synthetic(samples []synthSample) *pprofile.Profile {
	p := &pprofile.Profile{
		SampleType: []*pprofile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &pprofile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:     10_000_000,
	}
	fns := map[string]*pprofile.Function{}
	fn := func(name string) *pprofile.Function {
		if f, ok := fns[name]; ok {
			return f
		}
		f := &pprofile.Function{ID: uint64(len(fns) + 1), Name: name, SystemName: name}
		fns[name] = f
		p.Function = append(p.Function, f)
		return f
	}
	for _, s := range samples {
		var locs []*pprofile.Location
		for _, frame := range s.stack {
			loc := &pprofile.Location{ID: uint64(len(p.Location) + 1)}
			for _, name := range strings.Split(frame, "|") {
				loc.Line = append(loc.Line, pprofile.Line{Function: fn(name)})
			}
			p.Location = append(p.Location, loc)
			locs = append(locs, loc)
		}
		sample := &pprofile.Sample{Location: locs, Value: []int64{s.ms / 10, s.ms * 1e6}}
		if s.workload != "" {
			sample.Label = map[string][]string{workloadLabel: {s.workload}}
		}
		p.Sample = append(p.Sample, sample)
	}
	return p
}

type synthSample struct {
	workload string
	stack    []string
	ms       int64
}

const (
	wa    = "BenchmarkPerfScheduling/WindowsMix/500Nodes_1000Pods_WindowsAware"
	stock = "BenchmarkPerfScheduling/WindowsMix/500Nodes_1000Pods_StockSelectors"
)

// stacks of the kinds a scheduler_perf profile holds, leaf first.
var (
	cycle      = []string{"runtime.mapaccess2", "k8s.io/kubernetes/pkg/scheduler.(*Scheduler).schedulingCycle", "k8s.io/kubernetes/pkg/scheduler.(*Scheduler).scheduleOnePod", "k8s.io/kubernetes/pkg/scheduler.(*Scheduler).ScheduleOne", "k8s.io/apimachinery/pkg/util/wait.UntilWithContext"}
	filterWork = []string{"github.com/windows-aware/windows-aware/pkg/plugins/windowsaware.(*Plugin).Filter", "k8s.io/kubernetes/pkg/scheduler/framework/runtime.(*frameworkImpl).RunFilterPlugins", "k8s.io/kubernetes/pkg/scheduler.(*Scheduler).findNodesThatPassFilters.func1", parallelWorker}
	scoreWork  = []string{"runtime.memmove", "k8s.io/kubernetes/pkg/scheduler/framework/runtime.(*frameworkImpl).RunScorePlugins.func2", parallelWorker}
	bareWorker = []string{"k8s.io/kubernetes/pkg/scheduler/framework/plugins/interpodaffinity.(*InterPodAffinity).getExistingAntiAffinityCounts.func1", parallelWorker}
	createPod  = []string{"k8s.io/client-go/kubernetes/typed/core/v1.(*pods).Create", "k8s.io/kubernetes/test/integration/scheduler_perf.CreatePod.func1", parallelWorker}
	binding    = []string{"k8s.io/client-go/rest.(*Request).Do", "k8s.io/kubernetes/pkg/scheduler.(*Scheduler).bindingCycle", "k8s.io/kubernetes/pkg/scheduler.(*Scheduler).runBindingCycle"}
	apiserver  = []string{"go.etcd.io/etcd/client/v3.(*kv).Do", "k8s.io/apiserver/pkg/storage/etcd3.(*store).GuaranteedUpdate"}
	inlined    = []string{"k8s.io/kubernetes/pkg/scheduler/framework.(*PodInfo).Update|k8s.io/kubernetes/pkg/scheduler/framework/runtime.(*frameworkImpl).RunPreEnqueuePlugins", "k8s.io/kubernetes/pkg/scheduler/backend/queue.(*PriorityQueue).Add"}
	hint       = []string{"github.com/windows-aware/windows-aware/pkg/plugins/windowsaware.(*Plugin).isSchedulableAfterPodChange", "k8s.io/kubernetes/pkg/scheduler/backend/queue.(*PriorityQueue).isPodWorthRequeuing", "k8s.io/kubernetes/pkg/scheduler/backend/queue.(*PriorityQueue).moveAllToActiveOrBackoffQueue"}

	// BindGuard's read of the node's pods, in the binding cycle: counted.
	guardRead = []string{"k8s.io/api/core/v1.(*Pod).Unmarshal", "k8s.io/client-go/kubernetes/typed/core/v1.(*pods).List", bindGuardPrefix + ".(*BindGuard).PreBind", "k8s.io/kubernetes/pkg/scheduler/framework/runtime.(*frameworkImpl).RunPreBindPlugins", "k8s.io/kubernetes/pkg/scheduler.(*Scheduler).bindingCycle", "k8s.io/kubernetes/pkg/scheduler.(*Scheduler).runBindingCycle"}
)

func TestAttribute(t *testing.T) {
	p := synthetic([]synthSample{
		{wa, cycle, 100},
		{wa, filterWork, 200},
		{wa, scoreWork, 30},
		{wa, bareWorker, 5},   // a plugin's own parallel piece: a worker running the scheduler's code
		{wa, createPod, 400},  // the harness's workers: not scheduling
		{wa, binding, 70},     // the binding cycle: not scheduling
		{wa, guardRead, 20},   // but BindGuard's PreBind in it is
		{wa, apiserver, 1000}, // the API server
		{wa, inlined, 2},      // an inlined frame of a root counts
		{wa, hint, 3},
		{stock, cycle, 40},
		{stock, filterWork, 600},
		{stock, apiserver, 900},
		{"", cycle, 5000}, // no label: left out
	})
	got, err := attribute(p)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]cpuUse{
		wa:    {scheduling: 0.360, total: 1.830},
		stock: {scheduling: 0.640, total: 1.540},
	}
	if len(got) != len(want) {
		t.Fatalf("workloads %v, want %v", got, want)
	}
	for w, u := range want {
		g := got[w]
		if math.Abs(g.scheduling-u.scheduling) > 1e-9 || math.Abs(g.total-u.total) > 1e-9 {
			t.Errorf("%s: got %+v, want %+v", w, g, u)
		}
	}
}

func TestAttributeNotCPU(t *testing.T) {
	p := synthetic(nil)
	p.SampleType = []*pprofile.ValueType{{Type: "alloc_space", Unit: "bytes"}}
	if _, err := attribute(p); err == nil {
		t.Error("a heap profile was read as a CPU profile")
	}
}

// TestReadCPU: a profile written and read back, with its records: CPU per
// pod, throughput by span and the window, by workload without "Benchmark".
func TestReadCPU(t *testing.T) {
	dir := t.TempDir()
	p := synthetic([]synthSample{{wa, filterWork, 330}, {stock, filterWork, 990}})
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "cpu-perf-round-1.prof")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	records := `{"workload":"` + wa + `","scheduled":1100,"spanPods":900,"spanSeconds":9,"window":10,"bindGuardChecks":1100,"podLists":1111}
{"workload":"` + stock + `","scheduled":1100,"spanPods":0,"spanSeconds":0,"window":1.5}
`
	if err := os.WriteFile(filepath.Join(dir, "cpu-perf-round-1.jsonl"), []byte(records), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := loadCPU(dir)
	if err != nil {
		t.Fatal(err)
	}
	a, b := strings.TrimPrefix(wa, "Benchmark"), strings.TrimPrefix(stock, "Benchmark")
	if x, ok := cpuRatio(c, a, b); !ok || math.Abs(x-1.0/3) > 1e-9 {
		t.Errorf("CPU per pod ratio %v (%v), want 1/3", x, ok)
	}
	if got := c[a].span; len(got) != 1 || got[0] != 100 {
		t.Errorf("span %v, want [100]", got)
	}
	if _, ok := spanRatio(c, a, b); ok {
		t.Error("a span ratio with no span for the stock run")
	}
	if got := c[b].win; len(got) != 1 || got[0] != 1.5 {
		t.Errorf("window %v, want [1.5]", got)
	}
	// The API reads a bind made, per pod scheduled; none recorded, none read.
	if got := c[a].guardChecks; len(got) != 1 || got[0] != 1 {
		t.Errorf("guard checks a pod %v, want [1]", got)
	}
	if got := c[a].podLists; len(got) != 1 || got[0] != 1.01 {
		t.Errorf("pod LISTs a pod %v, want [1.01]", got)
	}
	if got := c[b]; len(got.guardChecks) != 0 || len(got.podLists) != 0 {
		t.Errorf("reads %v %v where none were recorded", got.guardChecks, got.podLists)
	}
}

// TestUpstreamTable: the three ratios of a workload run in both variants,
// and the flag on a run too short for upstream's average.
func TestUpstreamTable(t *testing.T) {
	dir := t.TempDir()
	const (
		st     = "BenchmarkUpstream/misc/plugins=stock/SchedulingBasic/500Nodes"
		w      = "BenchmarkUpstream/misc/plugins=windows-aware/SchedulingBasic/500Nodes"
		stFast = "BenchmarkUpstream/misc/plugins=stock/SchedulingBasic/5Nodes"
		wFast  = "BenchmarkUpstream/misc/plugins=windows-aware/SchedulingBasic/5Nodes"
	)
	bench := st + "-2 1 50 SchedulingThroughput/Average\n" + w + "-2 1 40 SchedulingThroughput/Average\n" +
		stFast + "-2 1 20 SchedulingThroughput/Average\n" + wFast + "-2 1 10 SchedulingThroughput/Average\n"
	if err := os.WriteFile(filepath.Join(dir, "upstream.txt"), []byte(bench), 0o644); err != nil {
		t.Fatal(err)
	}
	p := synthetic([]synthSample{{st, cycle, 1000}, {w, cycle, 1100}, {stFast, cycle, 10}, {wFast, cycle, 10}})
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cpu-perf-round-1.prof"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	records := `{"workload":"` + st + `","scheduled":1000,"spanPods":800,"spanSeconds":10,"window":11}
{"workload":"` + w + `","scheduled":1000,"spanPods":880,"spanSeconds":10,"window":11}
{"workload":"` + stFast + `","scheduled":10,"window":1}
{"workload":"` + wFast + `","scheduled":10,"window":1}
`
	if err := os.WriteFile(filepath.Join(dir, "cpu-perf-round-1.jsonl"), []byte(records), 0o644); err != nil {
		t.Fatal(err)
	}
	rows, err := upstreamRows(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("rows %+v, want 2", rows)
	}
	r := rows[0] // Upstream/misc/SchedulingBasic/500Nodes sorts first
	if r.name != "Upstream/misc/SchedulingBasic/500Nodes" || !near(r.avg, 0.8) || !near(r.span, 1.1) || !near(r.cpu, 1.1) || r.short {
		t.Errorf("got %+v, want avg 0.8, span 1.1, CPU 1.1, not short", r)
	}
	if f := rows[1]; !f.short || f.haveSpan || !near(f.avg, 0.5) {
		t.Errorf("got %+v, want short, no span, avg 0.5", f)
	}
	var out bytes.Buffer
	if err := printUpstream(&out, dir); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "short: under 5 s") {
		t.Errorf("no flag on the short run:\n%s", out.String())
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
