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

package plugins

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	fwk "k8s.io/kube-scheduler/framework"
	schedulerapi "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	plfeature "k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodeaffinity"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/tainttoleration"

	"github.com/windows-aware/windows-aware/internal/synthetic"
	"github.com/windows-aware/windows-aware/pkg/plugins/ostainttoleration"
	"github.com/windows-aware/windows-aware/pkg/plugins/windowsaware"
)

var sizesFlag = flag.String("sizes", "1000,5000,15000", "comma-separated node counts the sweeps run at")

func sizes(tb testing.TB) []int {
	var out []int
	for _, s := range strings.Split(*sizesFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			tb.Fatalf("-sizes: bad node count %q", s)
		}
		out = append(out, n)
	}
	return out
}

// podSet names the pods one benchmark schedules in turn: one kind, or the
// whole mix in its order.
var podSets = func() []string {
	var names []string
	for _, k := range synthetic.Kinds {
		names = append(names, k.Name)
	}
	return append(names, "mix")
}()

// variantOf is how the pods of a profile's approach are written: plain for
// windows-aware, with the user's selectors for the stock profile.
func variantOf(profile string) synthetic.Variant {
	if profile == synthetic.ProfileWindowsAware {
		return synthetic.WindowsAware
	}
	return synthetic.StockSelectors
}

func podsOf(set, profile string) []*v1.Pod {
	if set == "mix" {
		pods := make([]*v1.Pod, len(synthetic.Mix))
		for i := range pods {
			k := synthetic.KindOf(i)
			pods[i] = k.Pod(fmt.Sprintf("mix-%d-%s", i, k.Name), variantOf(profile))
		}
		return pods
	}
	k, ok := synthetic.KindByName(set)
	if !ok {
		panic("unknown pod kind " + set)
	}
	return []*v1.Pod{k.Pod("bench-"+k.Name, variantOf(profile))}
}

// BenchmarkSweep measures, per pod, what each approach costs the scheduler:
// PreFilter once; Filter on every node the scheduler evaluates (the whole
// cluster, or the nodes a PreFilterResult names: WindowsAware names the
// nodes of a Windows pod's OS and build); PreScore and Score (normalized,
// weighted) on the feasible nodes the scheduler would score (the adaptive
// percentageOfNodesToScore of the evaluated nodes: 500 of 5,000).
//
//	approach=windows-aware: WindowsAware + OSTaintToleration, pods with no
//	    selector and no toleration;
//	approach=stock: NodeAffinity + TaintToleration, pods with the selectors,
//	    affinity and tolerations a user has to write for the same placement;
//	approach=floor (pod mix only): two plugins that do nothing in the same
//	    framework, the cost of the framework around any two-plugin approach.
//
// One op is one pod. Custom metrics: cpu-ns/op (process CPU time), ns/node
// and allocs/node (op over the cluster's size), the phases
// (prefilter-ns/op, filter-ns/node per evaluated node, score-ns/node per
// scored node), filtered-nodes/op and scored-nodes/op, and the allocations
// of Filter for one node that passes and one that is rejected (the most over
// the node pools).
func BenchmarkSweep(b *testing.B) {
	for _, n := range sizes(b) {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			e := getEnv(b, n)
			for _, set := range podSets {
				b.Run("pod="+set, func(b *testing.B) {
					approaches := []*approach{e.wa, e.stock}
					if set == "mix" {
						approaches = append(approaches, e.floor)
					}
					for _, a := range approaches {
						b.Run("approach="+approachName(a), func(b *testing.B) { e.benchSweep(b, a, set) })
					}
				})
			}
		})
	}
}

func approachName(a *approach) string {
	switch a.name {
	case synthetic.ProfileWindowsAware:
		return "windows-aware"
	case synthetic.ProfileStock:
		return "stock"
	}
	return a.name
}

func (e *env) benchSweep(b *testing.B, a *approach, set string) {
	ctx := quietContext(context.Background())
	pods := podsOf(set, a.name)
	c := cycle{feasible: make([]fwk.NodeInfo, 0, e.n)}
	var preNs, filterNs, scoreNs time.Duration
	scored, evaluated := 0, 0

	b.ReportAllocs()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	cpu := startCPU()
	for i := 0; i < b.N; i++ {
		pod := pods[i%len(pods)]
		t0 := time.Now()
		if err := a.preFilter(ctx, &c, pod, e.snapshot, e.infos); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		a.filter(ctx, &c, pod)
		t2 := time.Now()
		// The scheduler scores as many feasible nodes as the adaptive
		// percentage gives for the nodes it evaluates.
		toScore := c.feasible[:min(len(c.feasible), numFeasibleNodesToFind(len(c.candidates)))]
		if _, err := a.score(ctx, &c, pod, toScore); err != nil {
			b.Fatal(err)
		}
		t3 := time.Now()
		preNs += t1.Sub(t0)
		filterNs += t2.Sub(t1)
		scoreNs += t3.Sub(t2)
		scored += len(toScore)
		evaluated += len(c.candidates)
	}
	b.StopTimer()
	cpu.report(b)
	runtime.ReadMemStats(&after)

	perOp := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	allocsPerOp := float64(after.Mallocs-before.Mallocs) / float64(b.N)
	b.ReportMetric(perOp/float64(e.n), "ns/node")
	b.ReportMetric(allocsPerOp/float64(e.n), "allocs/node")
	b.ReportMetric(float64(preNs.Nanoseconds())/float64(b.N), "prefilter-ns/op")
	b.ReportMetric(float64(filterNs.Nanoseconds())/float64(evaluated), "filter-ns/node")
	if scored > 0 {
		b.ReportMetric(float64(scoreNs.Nanoseconds())/float64(scored), "score-ns/node")
	}
	b.ReportMetric(float64(scored)/float64(b.N), "scored-nodes/op")
	b.ReportMetric(float64(evaluated)/float64(b.N), "filtered-nodes/op")

	pass, reject := e.filterAllocs(ctx, a, pods)
	b.ReportMetric(pass, "allocs/pass-node")
	b.ReportMetric(reject, "allocs/reject-node")
}

// filterAllocs returns the most allocations Filter made for one node that
// passes and for one that is rejected, over one node of each pool and every
// pod of the set.
func (e *env) filterAllocs(ctx context.Context, a *approach, pods []*v1.Pod) (pass, reject float64) {
	reps := map[string]fwk.NodeInfo{}
	for _, ni := range e.infos {
		pool := ni.Node().Labels[synthetic.LabelPool]
		if _, ok := reps[pool]; !ok {
			reps[pool] = ni
		}
	}
	for _, pod := range pods {
		var c cycle
		if err := a.preFilter(ctx, &c, pod, e.snapshot, e.infos); err != nil {
			panic(err)
		}
		for _, ni := range reps {
			ok := a.fw.RunFilterPlugins(ctx, c.state, pod, ni).IsSuccess()
			allocs := testing.AllocsPerRun(200, func() { a.fw.RunFilterPlugins(ctx, c.state, pod, ni) })
			if ok {
				pass = max(pass, allocs)
			} else {
				reject = max(reject, allocs)
			}
		}
	}
	return pass, reject
}

// BenchmarkFilterNode measures one plugin's Filter on one node, called
// directly (no framework around it): the hot path, per case of verdict.
func BenchmarkFilterNode(b *testing.B) {
	e := getEnv(b, 1000)
	ctx := quietContext(context.Background())
	fh := e.wa.fw
	fts := plfeature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)
	s, err := loadSettings()
	if err != nil {
		b.Fatal(err)
	}
	mustPlugin := func(p fwk.Plugin, err error) fwk.Plugin {
		if err != nil {
			b.Fatal(err)
		}
		return p
	}
	wa := mustPlugin(windowsaware.New(ctx, s.args, fh))
	ost := mustPlugin(ostainttoleration.New(ctx, nil, fh))
	na := mustPlugin(nodeaffinity.New(ctx, &schedulerapi.NodeAffinityArgs{}, e.stock.fw, fts))
	tt := mustPlugin(tainttoleration.New(ctx, nil, e.stock.fw, fts))

	nodeOf := func(pool string) fwk.NodeInfo {
		for _, ni := range e.infos {
			if ni.Node().Labels[synthetic.LabelPool] == pool {
				return ni
			}
		}
		b.Fatalf("no node in pool %s", pool)
		return nil
	}
	type tc struct {
		plugin, name, kind, pool string
		wantPass                 bool
	}
	cases := []tc{
		{windowsaware.Name, "pass-build", "win2022", "win2022", true},
		{windowsaware.Name, "pass-os", "linux", "linux", true},
		{windowsaware.Name, "reject-build", "win2022", "win2019", false},
		{windowsaware.Name, "reject-os", "win2022", "linux", false},
		{ostainttoleration.Name, "pass-untainted", "win2022", "linux", true},
		{ostainttoleration.Name, "pass-os-taint", "win2022", "win2022", true},
		{ostainttoleration.Name, "reject", "linux", "win2022", false},
		{"NodeAffinity", "pass", "win2022", "win2022", true},
		{"NodeAffinity", "pass-selector-only", "linux", "linux", true},
		{"NodeAffinity", "reject", "win2022", "win2019", false},
		{"TaintToleration", "pass-untainted", "win2022", "linux", true},
		{"TaintToleration", "pass-tolerated", "win2022", "win2022", true},
		{"TaintToleration", "reject", "linux", "win2022", false},
	}
	for _, c := range cases {
		b.Run("plugin="+c.plugin+"/case="+c.name, func(b *testing.B) {
			k, _ := synthetic.KindByName(c.kind)
			ni := nodeOf(c.pool)
			state := framework.NewCycleState()
			var pod *v1.Pod
			var plugin fwk.FilterPlugin
			switch c.plugin {
			case windowsaware.Name, ostainttoleration.Name:
				pod = k.Pod("node-"+k.Name, synthetic.WindowsAware)
				if _, st := wa.(fwk.PreFilterPlugin).PreFilter(ctx, state, pod, nil); !st.IsSuccess() && !st.IsSkip() {
					b.Fatal(st.AsError())
				}
				plugin = wa.(fwk.FilterPlugin)
				if c.plugin == ostainttoleration.Name {
					plugin = ost.(fwk.FilterPlugin)
				}
			case "NodeAffinity":
				pod = k.Pod("node-"+k.Name, synthetic.StockSelectors)
				if _, st := na.(fwk.PreFilterPlugin).PreFilter(ctx, state, pod, nil); !st.IsSuccess() {
					b.Fatal(st.AsError())
				}
				plugin = na.(fwk.FilterPlugin)
			case "TaintToleration":
				pod = k.Pod("node-"+k.Name, synthetic.StockSelectors)
				plugin = tt.(fwk.FilterPlugin)
			}
			if got := plugin.Filter(ctx, state, pod, ni).IsSuccess(); got != c.wantPass {
				b.Fatalf("%s on a %s node for a %s pod: pass=%v, want %v", c.plugin, c.pool, c.kind, got, c.wantPass)
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu := startCPU()
			for i := 0; i < b.N; i++ {
				plugin.Filter(ctx, state, pod, ni)
			}
			b.StopTimer()
			cpu.report(b)
		})
	}
}

// TestPlacementsAgree is the correctness gate on its own, for go test
// without -bench: at 5,000 nodes both approaches find exactly the nodes the
// oracle allows for every kind of pod, and rank the exact build first.
func TestPlacementsAgree(t *testing.T) {
	e := getEnv(t, 5000)
	t.Logf("%d nodes: every kind of pod placed alike by both approaches and the oracle; %d nodes scored per pod", e.n, e.toScore)
}
