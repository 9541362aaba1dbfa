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
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	toolscache "k8s.io/client-go/tools/cache"
	resourceslicetracker "k8s.io/dynamic-resource-allocation/resourceslice/tracker"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	schedulerapi "k8s.io/kubernetes/pkg/scheduler/apis/config"
	kubeschedulerscheme "k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	"k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodevolumelimits"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/util/assumecache"

	"github.com/windows-aware/windows-aware/internal/synthetic"
	"github.com/windows-aware/windows-aware/pkg/plugins/ostainttoleration"
	"github.com/windows-aware/windows-aware/pkg/plugins/windowsaware"
	"github.com/windows-aware/windows-aware/pkg/plugins/windowsawarepreemption"
)

// profileFrameworks builds the whole profiles of the shipped configuration,
// every default plugin included, over a snapshot of nodes served by a node
// informer, as the scheduler binary runs them: the snapshot holds the
// informer's objects, which WindowsAware classifies once.
func profileFrameworks(ctx context.Context, path string, nodes []*v1.Node) (map[string]framework.Framework, *cache.Snapshot, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	obj, _, err := kubeschedulerscheme.Codecs.UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		return nil, nil, err
	}
	cfg := obj.(*schedulerapi.KubeSchedulerConfiguration)
	var wa []*windowsaware.WindowsAware
	registry := plugins.NewInTreeRegistry()
	if err := registry.Merge(frameworkruntime.Registry{
		windowsaware.Name: func(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
			p, err := windowsaware.New(ctx, obj, h)
			if pl, ok := p.(*windowsaware.WindowsAware); ok {
				wa = append(wa, pl)
			}
			return p, err
		},
		ostainttoleration.Name:      ostainttoleration.New,
		windowsawarepreemption.Name: windowsawarepreemption.New,
	}); err != nil {
		return nil, nil, err
	}
	// The nodes through an informer, and the shared managers the scheduler
	// gives its plugins (pkg/scheduler New) over the same fake clientset:
	// no claims, slices or CSI nodes.
	informerFactory, informed, err := informedNodes(ctx, nodes)
	if err != nil {
		return nil, nil, err
	}
	snapshot := cache.NewSnapshot(nil, informed)
	client := fake.NewClientset()
	logger := klog.FromContext(ctx)
	claimCache := assumecache.NewAssumeCache(logger, informerFactory.Resource().V1().ResourceClaims().Informer(), "ResourceClaim", "", nil)
	tracker, err := resourceslicetracker.StartTracker(ctx, resourceslicetracker.Options{
		SliceInformer: informerFactory.Resource().V1().ResourceSlices(),
		KubeClient:    client,
	})
	if err != nil {
		return nil, nil, err
	}
	draManager := dynamicresources.NewDRAManager(ctx, claimCache, tracker, informerFactory)
	csiManager := nodevolumelimits.NewCSIManager(informerFactory.Storage().V1().CSINodes().Lister())
	out := map[string]framework.Framework{}
	for i := range cfg.Profiles {
		p := &cfg.Profiles[i]
		fw, err := frameworkruntime.NewFramework(ctx, registry, p,
			frameworkruntime.WithSnapshotSharedLister(snapshot),
			frameworkruntime.WithClientSet(client),
			frameworkruntime.WithInformerFactory(informerFactory),
			frameworkruntime.WithSharedDRAManager(draManager),
			frameworkruntime.WithSharedCSIManager(csiManager),
			frameworkruntime.WithParallelism(1),
		)
		if err != nil {
			return nil, nil, fmt.Errorf("profile %s: %w", p.SchedulerName, err)
		}
		out[p.SchedulerName] = fw
	}
	informerFactory.Start(ctx.Done())
	informerFactory.WaitForCacheSync(ctx.Done())
	for _, pl := range wa {
		if !toolscache.WaitForCacheSync(ctx.Done(), pl.HasSynced) {
			return nil, nil, fmt.Errorf("the node class table never synced")
		}
	}
	return out, snapshot, nil
}

// TestProfileFilterOrder prints the order in which each profile of the
// shipped configuration runs its PreFilter and Filter plugins (a node is
// rejected by the first Filter that fails, so the order decides how much
// work a node that cannot run the pod costs), and holds the windows-aware
// profile to the order it ships: WindowsAware first at PreFilter,
// WindowsAware then OSTaintToleration first at Filter, each once, and no
// TaintToleration Filter; the stock profile filters with TaintToleration
// and NodeAffinity and knows nothing of the windows-aware plugins.
func TestProfileFilterOrder(t *testing.T) {
	ctx, cancel := context.WithCancel(quietContext(context.Background()))
	defer cancel()
	fws, _, err := profileFrameworks(ctx, *shippedConfig, synthetic.Nodes(10))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{synthetic.ProfileStock, synthetic.ProfileWindowsAware} {
		fw := fws[name]
		if fw == nil {
			t.Fatalf("no profile %s", name)
		}
		list := fw.ListPlugins()
		names := func(ps []schedulerapi.Plugin) string { return strings.Join(pluginNames(ps), ",") }
		// Parsed by the report (hack/bench.sh report).
		fmt.Printf("ORDER profile=%s point=PreFilter plugins=%s\n", name, names(list.PreFilter.Enabled))
		fmt.Printf("ORDER profile=%s point=Filter plugins=%s\n", name, names(list.Filter.Enabled))
		fmt.Printf("ORDER profile=%s point=Score plugins=%s\n", name, names(list.Score.Enabled))
		checkFilterOrder(t, name, pluginNames(list.PreFilter.Enabled), pluginNames(list.Filter.Enabled))
	}
}

func pluginNames(ps []schedulerapi.Plugin) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}

// checkFilterOrder holds a profile's PreFilter and Filter plugins to the
// shipped order.
func checkFilterOrder(t *testing.T, profile string, preFilter, filter []string) {
	t.Helper()
	count := func(ps []string, name string) int {
		n := 0
		for _, p := range ps {
			if p == name {
				n++
			}
		}
		return n
	}
	switch profile {
	case synthetic.ProfileWindowsAware:
		if len(preFilter) == 0 || preFilter[0] != windowsaware.Name {
			t.Errorf("%s: PreFilter %v: %s does not run first", profile, preFilter, windowsaware.Name)
		}
		if len(filter) < 2 || filter[0] != windowsaware.Name || filter[1] != ostainttoleration.Name {
			t.Errorf("%s: Filter %v: %s and %s do not run first", profile, filter, windowsaware.Name, ostainttoleration.Name)
		}
		for _, p := range []string{windowsaware.Name, ostainttoleration.Name} {
			if n := count(filter, p); n != 1 {
				t.Errorf("%s: Filter %v: %s runs %d times, want once", profile, filter, p, n)
			}
		}
		if n := count(preFilter, windowsaware.Name); n != 1 {
			t.Errorf("%s: PreFilter %v: %s runs %d times, want once", profile, preFilter, windowsaware.Name, n)
		}
		if slices.Contains(filter, "TaintToleration") {
			t.Errorf("%s: Filter %v: TaintToleration still filters (OSTaintToleration replaces it)", profile, filter)
		}
	case synthetic.ProfileStock:
		for _, p := range []string{"TaintToleration", "NodeAffinity"} {
			if !slices.Contains(filter, p) {
				t.Errorf("%s: Filter %v lacks %s", profile, filter, p)
			}
		}
		for _, p := range []string{windowsaware.Name, ostainttoleration.Name} {
			if slices.Contains(filter, p) || slices.Contains(preFilter, p) {
				t.Errorf("%s: PreFilter %v, Filter %v: %s in the stock profile", profile, preFilter, filter, p)
			}
		}
	}
}

// profileBench is one whole profile measured by BenchmarkProfileSweep.
type profileBench struct {
	name    string // as in the benchmark name
	profile string // the profile its pods ask for
	fw      framework.Framework
}

// BenchmarkProfileSweep measures one scheduling cycle per pod through a
// whole profile of the shipped configuration (every default plugin, as the
// binary runs it), the way the scheduler does it: PreFilter; Filter on the
// nodes it evaluates (all, or those a PreFilterResult names) from a rotating
// start until it has found the nodes it scores (500 of 5,000); PreScore and
// Score on those. Binding is not included.
//
//	profile=stock:          default-scheduler, pods with selectors and tolerations;
//	profile=windows-aware:  the shipped windows-aware profile (WindowsAware and
//	                        OSTaintToleration filter first), plain pods.
func BenchmarkProfileSweep(b *testing.B) {
	for _, n := range sizes(b) {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			ctx, cancel := context.WithCancel(quietContext(context.Background()))
			defer cancel()
			shipped, snapshot, err := profileFrameworks(ctx, *shippedConfig, synthetic.Nodes(n))
			if err != nil {
				b.Fatal(err)
			}
			infos, err := snapshot.NodeInfos().List()
			if err != nil {
				b.Fatal(err)
			}
			profiles := []profileBench{
				{"windows-aware", synthetic.ProfileWindowsAware, shipped[synthetic.ProfileWindowsAware]},
				{"stock", synthetic.ProfileStock, shipped[synthetic.ProfileStock]},
			}
			for _, p := range profiles {
				if err := checkProfile(ctx, p, snapshot, infos); err != nil {
					b.Fatalf("%d nodes: %v", n, err)
				}
			}
			for _, set := range []string{"linux", "win2019", "mix"} {
				b.Run("pod="+set, func(b *testing.B) {
					for _, p := range profiles {
						b.Run("profile="+p.name, func(b *testing.B) { benchProfile(b, ctx, p, snapshot, infos, set) })
					}
				})
			}
		})
	}
}

// checkProfile holds a whole profile to the oracle: every kind of pod finds
// exactly the nodes it may run on feasible.
func checkProfile(ctx context.Context, p profileBench, snapshot *cache.Snapshot, infos []fwk.NodeInfo) error {
	for _, k := range synthetic.Kinds {
		pod := k.Pod("check-"+k.Name, variantOf(p.profile))
		state := framework.NewCycleState()
		res, st, unscheduled := p.fw.RunPreFilterPlugins(ctx, state, pod)
		if !st.IsSuccess() {
			return fmt.Errorf("%s, pod %s: PreFilter: %v", p.name, k.Name, st.AsError())
		}
		nodes, _ := candidates(res, unscheduled, snapshot, infos)
		candidate := map[string]bool{}
		for _, ni := range nodes {
			candidate[ni.Node().Name] = true
		}
		for _, ni := range infos {
			got := candidate[ni.Node().Name] && p.fw.RunFilterPlugins(ctx, state, pod, ni).IsSuccess()
			if want := k.Allows(ni.Node()); got != want {
				return fmt.Errorf("%s, pod %s: node %s (pool %s): feasible=%v, want %v", p.name, k.Name, ni.Node().Name, ni.Node().Labels[synthetic.LabelPool], got, want)
			}
		}
	}
	return nil
}

func benchProfile(b *testing.B, ctx context.Context, p profileBench, snapshot *cache.Snapshot, infos []fwk.NodeInfo, set string) {
	pods := podsOf(set, p.profile)
	feasible := make([]fwk.NodeInfo, 0, len(infos))
	next, evaluated := 0, 0
	b.ReportAllocs()
	b.ResetTimer()
	cpu := startCPU()
	for i := 0; i < b.N; i++ {
		pod := pods[i%len(pods)]
		state := framework.NewCycleState()
		res, st, unscheduled := p.fw.RunPreFilterPlugins(ctx, state, pod)
		if !st.IsSuccess() {
			b.Fatal(st.AsError())
		}
		nodes, _ := candidates(res, unscheduled, snapshot, infos)
		// findNodesThatPassFilters: from a rotating start, until it has
		// the nodes to score.
		toFind := numFeasibleNodesToFind(len(nodes))
		feasible = feasible[:0]
		processed := 0
		for j := 0; j < len(nodes) && len(feasible) < toFind; j++ {
			ni := nodes[(next+j)%len(nodes)]
			processed++
			if p.fw.RunFilterPlugins(ctx, state, pod, ni).IsSuccess() {
				feasible = append(feasible, ni)
			}
		}
		next = (next + processed) % len(infos)
		evaluated += processed
		if st := p.fw.RunPreScorePlugins(ctx, state, pod, feasible); !st.IsSuccess() {
			b.Fatal(st.AsError())
		}
		if _, st := p.fw.RunScorePlugins(ctx, state, pod, feasible); !st.IsSuccess() {
			b.Fatal(st.AsError())
		}
	}
	b.StopTimer()
	cpu.report(b)
	b.ReportMetric(float64(evaluated)/float64(b.N), "evaluated-nodes/op")
}
