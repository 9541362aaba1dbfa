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

// upstream's scheduler_perf harness changes with every minor: the benchmark
// runs on the newest one only (hack/k8s.sh).

// Package perf runs the whole scheduler, windows-aware plugins included, in
// upstream's scheduler_perf harness on mixed-OS clusters of 5,000 nodes,
// and checks after every workload that each pod of the mix landed on a node
// that can run it (internal/oracle), except in the StockNoSelectors
// workloads, which measure the stock profile placing pods it cannot place
// correctly: there misplaced pods are counted, not failed.
//
//	PATH=$PWD/bin/tools:$PATH go test ./test/bench/perf -run '^$' \
//	    -bench BenchmarkPerfScheduling -benchtime 1x -timeout 60m \
//	    -data-items-dir $PWD/_output/bench/perf
//
// hack/bench.sh runs it with the right flags; the harness needs an etcd
// binary on PATH (make tools builds one into bin/tools).
package perf

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	_ "k8s.io/component-base/logs/json/register"
	"k8s.io/kubernetes/pkg/capabilities"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	perf "k8s.io/kubernetes/test/integration/scheduler_perf"
	"k8s.io/kubernetes/test/utils/client-go/ktesting"

	windowsawareapp "github.com/windows-aware/windows-aware/cmd/scheduler/app"
	"github.com/windows-aware/windows-aware/internal/oracle"
	"github.com/windows-aware/windows-aware/internal/synthetic"
	_ "github.com/windows-aware/windows-aware/pkg/apis/config/scheme" // WindowsAwareArgs in the scheduler's scheme
	"github.com/windows-aware/windows-aware/test/bench/schedcpu"
)

// topic names the JSON file the harness writes:
// BenchmarkPerfScheduling_benchmark_<topic>_<time>.json.
const topic = "windows-aware"

func TestMain(m *testing.M) {
	if err := perf.InitTests(); err != nil {
		fmt.Fprintf(os.Stderr, "%v\n", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// registry is what cmd/scheduler adds to the in-tree plugins
// (cmd/scheduler/app). BindGuard runs only where a profile enables it:
// the WindowsMixBindGuard workloads.
func registry() frameworkruntime.Registry { return windowsawareapp.Registry() }

// BenchmarkPerfScheduling runs the workloads of performance-config.yaml
// that the label filter selects (-perf-scheduling-label-filter, default
// "performance").
func BenchmarkPerfScheduling(b *testing.B) {
	var v verifier
	perf.RunBenchmarkPerfScheduling(b, "performance-config.yaml", topic, registry(),
		perf.WithPreRunFn(v.preRun),
		perf.WithPrepareFn(v.prepare),
	)
	if err := v.writeSummary(); err != nil {
		b.Errorf("writing the placement summary: %v", err)
	}
}

// verifier checks, when a workload is done and before the harness tears
// the cluster down, where every pod of the mix landed.
type verifier struct {
	mu       sync.Mutex
	workload *perf.Workload
	name     string
	results  []placementResult
}

// placementResult is what one workload's check found.
type placementResult struct {
	Workload  string `json:"workload"`
	Pods      int    `json:"pods"`      // pods of the mix checked
	Want      int    `json:"want"`      // initPods + measurePods
	Misplaced int    `json:"misplaced"` // on a node the oracle rejects
	// Enforced is false where misplaced pods are expected and only counted.
	Enforced  bool                      `json:"enforced"`
	Unbound   int                       `json:"unbound"`
	Placement map[string]map[string]int `json:"placement"` // kind -> pool -> pods
	Errors    []string                  `json:"errors,omitempty"`
}

func (v *verifier) preRun(tCtx ktesting.TContext, w *perf.Workload) (func(), error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.workload, v.name = w, tCtx.Name()
	// The workload's API server and scheduler start after this, in
	// goroutines that inherit the label: the CPU profile's samples say
	// which workload they belong to.
	schedcpu.Label(tCtx.Name())
	return nil, nil
}

func (v *verifier) prepare(tCtx ktesting.TContext) error {
	allowPrivileged()
	v.mu.Lock()
	w, name := v.workload, v.name
	v.mu.Unlock()
	// Cleanups run last-registered first: this one runs after the
	// workload's own (which stop its pod creation and collectors) and
	// before the harness stops the scheduler and the apiserver.
	tCtx.Cleanup(func() {
		if tCtx.TB().Failed() || tCtx.Err() != nil {
			return
		}
		if err := schedcpu.Record(name, topic); err != nil {
			tCtx.Errorf("recording the pods scheduled: %v", err)
		}
		r := check(tCtx, name, w)
		v.mu.Lock()
		v.results = append(v.results, r)
		v.mu.Unlock()
		for _, e := range r.Errors {
			tCtx.Errorf("%s", e)
		}
		switch {
		case len(r.Errors) > 0 || r.Pods == 0:
		case r.Enforced:
			tCtx.Logf("placements verified: %d pods of the mix, all on nodes that run them: %v", r.Pods, r.Placement)
		default:
			tCtx.Logf("placements counted, not enforced: %d pods of the mix, %d on nodes that cannot run them: %v", r.Pods, r.Misplaced, r.Placement)
		}
	})
	return nil
}

// allowPrivileged does for the in-process kube-apiserver what
// --allow-privileged=true (kubeadm's default) does for a real one: without
// it the apiserver refuses HostProcess pods ("hostProcess containers are
// disallowed by cluster policy"). The harness starts the apiserver with
// fixed flags, so the capability is set after it started, before any pod is
// created.
func allowPrivileged() {
	capabilities.ResetForTest()
	capabilities.Initialize(capabilities.Capabilities{AllowPrivileged: true})
}

// check lists the cluster's pods and nodes through the harness's client and
// holds every pod of the mix against the oracle.
func check(tCtx ktesting.TContext, name string, w *perf.Workload) placementResult {
	r := placementResult{Workload: name, Placement: map[string]map[string]int{}, Enforced: !strings.HasSuffix(name, "_StockNoSelectors")}
	ctx := context.WithoutCancel(tCtx)
	fail := func(format string, args ...any) {
		r.Errors = append(r.Errors, fmt.Sprintf(format, args...))
	}
	nodes, err := tCtx.Client().CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		fail("listing nodes: %v", err)
		return r
	}
	byName := make(map[string]*v1.Node, len(nodes.Items))
	for i := range nodes.Items {
		byName[nodes.Items[i].Name] = &nodes.Items[i]
	}
	pods, err := tCtx.Client().CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{LabelSelector: synthetic.LabelKind})
	if err != nil {
		fail("listing pods: %v", err)
		return r
	}
	if w != nil && (strings.Contains(name, "/WindowsMix/") || strings.Contains(name, "/WindowsMixBindGuard/")) {
		// Every pod of these workloads is a pod of the mix.
		init, err1 := w.GetParam("initPods")
		measure, err2 := w.GetParam("measurePods")
		if err1 == nil && err2 == nil {
			r.Want = init + measure
		}
	}
	for i := range pods.Items {
		pod := &pods.Items[i]
		r.Pods++
		kindName := pod.Labels[synthetic.LabelKind]
		if pod.Spec.NodeName == "" {
			r.Unbound++
			fail("pod %s/%s (%s) is not bound", pod.Namespace, pod.Name, kindName)
			continue
		}
		node, ok := byName[pod.Spec.NodeName]
		if !ok {
			fail("pod %s/%s (%s) is bound to %s, which does not exist", pod.Namespace, pod.Name, kindName, pod.Spec.NodeName)
			continue
		}
		pool := node.Labels[synthetic.LabelPool]
		if r.Placement[kindName] == nil {
			r.Placement[kindName] = map[string]int{}
		}
		r.Placement[kindName][pool]++
		verdict, err := oracle.Check(asOracleSees(pod), node)
		if err != nil {
			fail("pod %s/%s (%s): %v", pod.Namespace, pod.Name, kindName, err)
			continue
		}
		if verdict != oracle.OK {
			r.Misplaced++
			if r.Enforced && r.Misplaced <= 10 {
				fail("pod %s/%s (%s) landed on %s (os %q, build %q, pool %s): %s",
					pod.Namespace, pod.Name, kindName, node.Name, node.Labels[v1.LabelOSStable], node.Labels[v1.LabelWindowsBuild], pool, verdict)
			}
		}
	}
	if r.Enforced && r.Misplaced > 10 {
		fail("%d pods misplaced in all", r.Misplaced)
	}
	if r.Want > 0 && r.Pods != r.Want {
		fail("%d pods of the mix in the cluster, want %d", r.Pods, r.Want)
	}
	return r
}

// writeSummary leaves the checks' results beside the harness's JSON, for
// the report.
func (v *verifier) writeSummary() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.results) == 0 {
		return nil
	}
	dir := "."
	if f := flag.Lookup("data-items-dir"); f != nil && f.Value.String() != "" {
		dir = f.Value.String()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	sort.Slice(v.results, func(i, j int) bool { return v.results[i].Workload < v.results[j].Workload })
	data, err := json.MarshalIndent(v.results, "", "  ")
	if err != nil {
		return err
	}
	// One file per run (go test -count runs the benchmark again).
	name := fmt.Sprintf("placements_%s_%s.json", topic, time.Now().UTC().Format("2006-01-02T15-04-05.000"))
	return os.WriteFile(filepath.Join(dir, name), append(data, '\n'), 0o644)
}
