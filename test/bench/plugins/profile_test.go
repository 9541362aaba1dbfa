package plugins

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
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

	"github.com/windows-aware/windows-aware/pkg/plugins/windowsaware"
	"github.com/windows-aware/windows-aware/test/bench/internal/cluster"
)

// profileFrameworks builds the whole profiles of the shipped configuration,
// every default plugin included, over a snapshot of nodes: what the
// scheduler binary runs.
func profileFrameworks(ctx context.Context, path string, snapshot *cache.Snapshot) (map[string]framework.Framework, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	obj, _, err := kubeschedulerscheme.Codecs.UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		return nil, err
	}
	cfg := obj.(*schedulerapi.KubeSchedulerConfiguration)
	registry := plugins.NewInTreeRegistry()
	if err := registry.Merge(frameworkruntime.Registry{
		windowsaware.Name:                  windowsaware.New,
		windowsaware.OSTaintTolerationName: windowsaware.NewOSTaintToleration,
	}); err != nil {
		return nil, err
	}
	// The shared managers the scheduler gives its plugins (pkg/scheduler
	// New), over an empty fake clientset: no claims, slices or CSI nodes.
	client := fake.NewClientset()
	informerFactory := informers.NewSharedInformerFactory(client, 0)
	logger := klog.FromContext(ctx)
	claimCache := assumecache.NewAssumeCache(logger, informerFactory.Resource().V1().ResourceClaims().Informer(), "ResourceClaim", "", nil)
	tracker, err := resourceslicetracker.StartTracker(ctx, resourceslicetracker.Options{
		SliceInformer: informerFactory.Resource().V1().ResourceSlices(),
		KubeClient:    client,
	})
	if err != nil {
		return nil, err
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
			return nil, fmt.Errorf("profile %s: %w", p.SchedulerName, err)
		}
		out[p.SchedulerName] = fw
	}
	informerFactory.Start(ctx.Done())
	informerFactory.WaitForCacheSync(ctx.Done())
	return out, nil
}

// TestProfileFilterOrder prints the order in which each profile of the
// shipped configuration runs its PreFilter and Filter plugins: a node is
// rejected by the first Filter that fails, so the order decides how much
// work a node that cannot run the pod costs.
func TestProfileFilterOrder(t *testing.T) {
	ctx, cancel := context.WithCancel(quietContext(context.Background()))
	defer cancel()
	fws, err := profileFrameworks(ctx, *shippedConfig, cache.NewSnapshot(nil, cluster.Nodes(10)))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{cluster.ProfileStock, cluster.ProfileWindowsAware} {
		fw := fws[name]
		if fw == nil {
			t.Fatalf("no profile %s", name)
		}
		list := fw.ListPlugins()
		names := func(ps []schedulerapi.Plugin) string {
			var s []string
			for _, p := range ps {
				s = append(s, p.Name)
			}
			return strings.Join(s, ",")
		}
		// Parsed by the report (hack/bench.sh report).
		fmt.Printf("ORDER profile=%s point=PreFilter plugins=%s\n", name, names(list.PreFilter.Enabled))
		fmt.Printf("ORDER profile=%s point=Filter plugins=%s\n", name, names(list.Filter.Enabled))
		fmt.Printf("ORDER profile=%s point=Score plugins=%s\n", name, names(list.Score.Enabled))
	}
}

// variantConfig is the benchmark variant of the shipped configuration in
// which WindowsAware and OSTaintToleration filter first.
const variantConfig = "../perf/config/scheduler-config-filter-first.yaml"

func decodeConfig(t testing.TB, path string) *schedulerapi.KubeSchedulerConfiguration {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	obj, _, err := kubeschedulerscheme.Codecs.UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return obj.(*schedulerapi.KubeSchedulerConfiguration)
}

// TestFilterFirstVariant keeps the benchmark variant in step with the
// shipped configuration: take away the PreFilter and Filter entries that
// reorder the windows-aware plugins, and the two must be equal.
func TestFilterFirstVariant(t *testing.T) {
	shipped := decodeConfig(t, *shippedConfig)
	variant := decodeConfig(t, variantConfig)
	drop := func(ps []schedulerapi.Plugin, names ...string) []schedulerapi.Plugin {
		var out []schedulerapi.Plugin
		for _, p := range ps {
			if !slices.Contains(names, p.Name) {
				out = append(out, p)
			}
		}
		return out
	}
	for i := range variant.Profiles {
		p := &variant.Profiles[i]
		if p.SchedulerName != cluster.ProfileWindowsAware {
			continue
		}
		p.Plugins.PreFilter.Enabled = drop(p.Plugins.PreFilter.Enabled, windowsaware.Name)
		p.Plugins.Filter.Enabled = drop(p.Plugins.Filter.Enabled, windowsaware.Name, windowsaware.OSTaintTolerationName)
	}
	if diff := cmp.Diff(shipped, variant); diff != "" {
		t.Errorf("%s differs from %s in more than the filter order (-shipped +variant):\n%s", variantConfig, *shippedConfig, diff)
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
//	profile=stock:                         default-scheduler, pods with selectors and tolerations;
//	profile=windows-aware:                 the shipped windows-aware profile, plain pods;
//	profile=windows-aware-filter-first:    the same with WindowsAware and OSTaintToleration
//	                                       ordered first (perf/config/scheduler-config-filter-first.yaml).
func BenchmarkProfileSweep(b *testing.B) {
	for _, n := range sizes(b) {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			ctx, cancel := context.WithCancel(quietContext(context.Background()))
			defer cancel()
			nodes := cluster.Nodes(n)
			snapshot := cache.NewSnapshot(nil, nodes)
			infos, err := snapshot.NodeInfos().List()
			if err != nil {
				b.Fatal(err)
			}
			shipped, err := profileFrameworks(ctx, *shippedConfig, snapshot)
			if err != nil {
				b.Fatal(err)
			}
			variant, err := profileFrameworks(ctx, variantConfig, snapshot)
			if err != nil {
				b.Fatal(err)
			}
			profiles := []profileBench{
				{"windows-aware", cluster.ProfileWindowsAware, shipped[cluster.ProfileWindowsAware]},
				{"windows-aware-filter-first", cluster.ProfileWindowsAware, variant[cluster.ProfileWindowsAware]},
				{"stock", cluster.ProfileStock, shipped[cluster.ProfileStock]},
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
	for _, k := range cluster.Kinds {
		pod := k.Pod("check-"+k.Name, p.profile)
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
				return fmt.Errorf("%s, pod %s: node %s (pool %s): feasible=%v, want %v", p.name, k.Name, ni.Node().Name, ni.Node().Labels[cluster.LabelPool], got, want)
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
