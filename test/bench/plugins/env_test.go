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
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	schedulerapi "k8s.io/kubernetes/pkg/scheduler/apis/config"
	kubeschedulerscheme "k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	"k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultbinder"
	plfeature "k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodeaffinity"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/queuesort"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/tainttoleration"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
	tf "k8s.io/kubernetes/pkg/scheduler/testing/framework"

	"github.com/windows-aware/windows-aware/internal/synthetic"
	waconfig "github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/apis/config/scheme" // also WindowsAwareArgs in the scheduler's scheme
	"github.com/windows-aware/windows-aware/pkg/plugins/ostainttoleration"
	"github.com/windows-aware/windows-aware/pkg/plugins/windowsaware"
)

// shippedConfig is the configuration the project ships; the benchmarks take
// the windows-aware profile's args and weight from it.
var shippedConfig = flag.String("scheduler-config", "../../../manifests/scheduler-config.yaml", "KubeSchedulerConfiguration whose windows-aware profile is measured")

func TestMain(m *testing.M) {
	flag.Parse()
	// Quiet logging while timing: verbosity 0, output discarded.
	var fs flag.FlagSet
	klog.InitFlags(&fs)
	_ = fs.Set("v", "0")
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("alsologtostderr", "false")
	_ = fs.Set("stderrthreshold", "FATAL")
	klog.SetOutput(io.Discard)
	klog.SetLogger(logr.Discard())
	// The scheduler registers its metrics at start; the framework counts
	// plugin evaluations in them.
	metrics.Register()
	os.Exit(m.Run())
}

// quietContext carries a logger that is off at every verbosity.
func quietContext(ctx context.Context) context.Context {
	return klog.NewContext(ctx, logr.Discard())
}

// profileSettings is what the shipped windows-aware profile configures for
// the plugins measured here.
type profileSettings struct {
	args   *waconfig.WindowsAwareArgs
	weight int32
	// Filter order of the whole profiles, for the report.
	waFilterOrder, stockFilterOrder []string
}

var (
	settingsOnce sync.Once
	settings     profileSettings
	settingsErr  error
)

// loadSettings decodes the shipped configuration with the kube-scheduler's
// own scheme, as the binary does, and reads the windows-aware profile.
func loadSettings() (profileSettings, error) {
	settingsOnce.Do(func() {
		settings, settingsErr = decodeSettings(*shippedConfig)
	})
	return settings, settingsErr
}

func decodeSettings(path string) (profileSettings, error) {
	var s profileSettings
	data, err := os.ReadFile(path)
	if err != nil {
		return s, err
	}
	obj, _, err := kubeschedulerscheme.Codecs.UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		return s, fmt.Errorf("decoding %s: %w", filepath.Base(path), err)
	}
	cfg, ok := obj.(*schedulerapi.KubeSchedulerConfiguration)
	if !ok {
		return s, fmt.Errorf("%s holds %T, not a KubeSchedulerConfiguration", path, obj)
	}
	var wa *schedulerapi.KubeSchedulerProfile
	for i := range cfg.Profiles {
		if cfg.Profiles[i].SchedulerName == synthetic.ProfileWindowsAware {
			wa = &cfg.Profiles[i]
		}
	}
	if wa == nil {
		return s, fmt.Errorf("%s has no %q profile", path, synthetic.ProfileWindowsAware)
	}
	for _, pc := range wa.PluginConfig {
		if pc.Name == windowsaware.Name {
			args, ok := pc.Args.(*waconfig.WindowsAwareArgs)
			if !ok {
				return s, fmt.Errorf("pluginConfig %s holds %T", pc.Name, pc.Args)
			}
			s.args = args
		}
	}
	if s.args == nil {
		s.args = scheme.DefaultArgs()
	}
	s.weight = 1
	for _, p := range wa.Plugins.MultiPoint.Enabled {
		if p.Name == windowsaware.Name && p.Weight > 0 {
			s.weight = p.Weight
		}
	}
	for _, p := range wa.Plugins.Score.Enabled {
		if p.Name == windowsaware.Name && p.Weight > 0 {
			s.weight = p.Weight
		}
	}
	return s, nil
}

// approach is one way of placing pods by OS and build: the plugins that do
// it, in a real scheduling framework over the cluster's snapshot.
type approach struct {
	name string // the profile whose pods it places
	fw   framework.Framework
}

// env is a synthetic cluster as the scheduler sees it: a cache snapshot of
// n nodes, the node list in the snapshot's order, and one framework per
// approach.
type env struct {
	n        int
	nodes    []*v1.Node
	snapshot *cache.Snapshot
	infos    []fwk.NodeInfo
	wa       *approach
	stock    *approach
	floor    *approach
	toScore  int // how many feasible nodes the scheduler scores
	cancel   context.CancelFunc
}

var (
	envMu sync.Mutex
	envs  = map[int]*env{}
)

// getEnv builds (once per size) the cluster and checks that both approaches
// place every kind of pod exactly where the oracle says, before anything is
// timed.
func getEnv(tb testing.TB, n int) *env {
	tb.Helper()
	envMu.Lock()
	defer envMu.Unlock()
	if e, ok := envs[n]; ok {
		return e
	}
	e, err := newEnv(n)
	if err != nil {
		tb.Fatalf("building a %d-node cluster: %v", n, err)
	}
	if err := e.checkPlacements(); err != nil {
		tb.Fatalf("%d nodes: the approaches place pods wrongly: %v", n, err)
	}
	envs[n] = e
	return e
}

func newEnv(n int) (*env, error) {
	s, err := loadSettings()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(quietContext(context.Background()))
	e := &env{n: n, cancel: cancel, toScore: numFeasibleNodesToFind(n)}
	factory, nodes, err := informedNodes(ctx, synthetic.Nodes(n))
	if err != nil {
		cancel()
		return nil, err
	}
	e.nodes = nodes
	snapshot := cache.NewSnapshot(nil, e.nodes)
	e.snapshot = snapshot
	if e.infos, err = snapshot.NodeInfos().List(); err != nil {
		cancel()
		return nil, err
	}
	opts := []frameworkruntime.Option{
		frameworkruntime.WithSnapshotSharedLister(snapshot),
		// One goroutine: the benchmarks measure CPU per pod, not the
		// parallelizer.
		frameworkruntime.WithParallelism(1),
		frameworkruntime.WithInformerFactory(factory),
	}
	fts := plfeature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)

	var wa *windowsaware.WindowsAware
	waFactory := func(ctx context.Context, _ runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		p, err := windowsaware.New(ctx, s.args, h)
		wa, _ = p.(*windowsaware.WindowsAware)
		return p, err
	}
	e.wa, err = newApproach(ctx, synthetic.ProfileWindowsAware, opts,
		tf.RegisterPluginAsExtensionsWithWeight(windowsaware.Name, s.weight, waFactory, "PreFilter", "Filter", "PreScore", "Score"),
		tf.RegisterPluginAsExtensions(ostainttoleration.Name, ostainttoleration.New, "Filter"),
	)
	if err != nil {
		cancel()
		return nil, err
	}
	// As in the scheduler, WindowsAware classifies each node once, when
	// the node informer hands it over; measure the steady state.
	if !toolscache.WaitForCacheSync(ctx.Done(), wa.HasSynced) {
		cancel()
		return nil, fmt.Errorf("the node class table never synced")
	}
	// Stock: the plugins that read what the user wrote, in the default
	// profile's filter order (TaintToleration, then NodeAffinity) and
	// with NodeAffinity's default weight.
	e.stock, err = newApproach(ctx, synthetic.ProfileStock, opts,
		tf.RegisterPluginAsExtensions(names.TaintToleration, frameworkruntime.FactoryAdapter(fts, tainttoleration.New), "Filter"),
		tf.RegisterPluginAsExtensionsWithWeight(names.NodeAffinity, 2, frameworkruntime.FactoryAdapter(fts, nodeaffinity.New), "PreFilter", "Filter", "PreScore", "Score"),
	)
	if err != nil {
		cancel()
		return nil, err
	}
	// Floor: two Filter plugins and a Score plugin that do nothing, the
	// same framework around them: what any two-plugin approach costs
	// before its plugins do any work.
	e.floor, err = newApproach(ctx, "floor", opts,
		tf.RegisterPluginAsExtensions("NoopA", newNoop("NoopA"), "PreFilter", "Filter", "PreScore", "Score"),
		tf.RegisterPluginAsExtensions("NoopB", newNoop("NoopB"), "Filter"),
	)
	if err != nil {
		cancel()
		return nil, err
	}
	return e, nil
}

// informedNodes serves nodes through a node informer, as the scheduler
// receives them, and returns the informer's own objects in the order of
// nodes: the scheduler's snapshot holds the objects its informer delivers,
// and WindowsAware keys its node classes by them.
func informedNodes(ctx context.Context, nodes []*v1.Node) (informers.SharedInformerFactory, []*v1.Node, error) {
	objects := make([]runtime.Object, len(nodes))
	for i, n := range nodes {
		objects[i] = n
	}
	factory := informers.NewSharedInformerFactory(fake.NewClientset(objects...), 0)
	lister := factory.Core().V1().Nodes().Lister()
	factory.Start(ctx.Done())
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return nil, nil, fmt.Errorf("informer for %v never synced", typ)
		}
	}
	informed := make([]*v1.Node, len(nodes))
	for i, n := range nodes {
		got, err := lister.Get(n.Name)
		if err != nil {
			return nil, nil, err
		}
		informed[i] = got
	}
	return factory, informed, nil
}

// noop is a plugin that passes every node and scores them all alike.
type noop struct{ name string }

func newNoop(name string) frameworkruntime.PluginFactory {
	return func(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) { return &noop{name: name}, nil }
}

func (p *noop) Name() string { return p.name }
func (p *noop) PreFilter(context.Context, fwk.CycleState, *v1.Pod, []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	return nil, nil
}
func (p *noop) PreFilterExtensions() fwk.PreFilterExtensions                              { return nil }
func (p *noop) Filter(context.Context, fwk.CycleState, *v1.Pod, fwk.NodeInfo) *fwk.Status { return nil }
func (p *noop) PreScore(context.Context, fwk.CycleState, *v1.Pod, []fwk.NodeInfo) *fwk.Status {
	return nil
}
func (p *noop) Score(context.Context, fwk.CycleState, *v1.Pod, fwk.NodeInfo) (int64, *fwk.Status) {
	return 0, nil
}
func (p *noop) ScoreExtensions() fwk.ScoreExtensions { return nil }

func newApproach(ctx context.Context, name string, opts []frameworkruntime.Option, fns ...tf.RegisterPluginFunc) (*approach, error) {
	fns = append([]tf.RegisterPluginFunc{
		tf.RegisterQueueSortPlugin(queuesort.Name, queuesort.New),
		tf.RegisterBindPlugin(defaultbinder.Name, defaultbinder.New),
	}, fns...)
	fw, err := tf.NewFramework(ctx, fns, name, opts...)
	if err != nil {
		return nil, fmt.Errorf("%s framework: %w", name, err)
	}
	return &approach{name: name, fw: fw}, nil
}

// numFeasibleNodesToFind is the scheduler's: how many feasible nodes it
// scores, with the default percentageOfNodesToScore (adaptive: 50% less 1%
// per 125 nodes, at least 5% and at least 100 nodes).
func numFeasibleNodesToFind(n int) int {
	const minFeasibleNodesToFind, minPercentage, basePercentage = 100, 5, 50
	if n < minFeasibleNodesToFind {
		return n
	}
	pct := basePercentage - n/125
	if pct < minPercentage {
		pct = minPercentage
	}
	num := n * pct / 100
	if num < minFeasibleNodesToFind {
		return minFeasibleNodesToFind
	}
	return num
}

// cycle is one pod's pass through an approach's plugins.
type cycle struct {
	state *framework.CycleState
	// candidates are the nodes the scheduler evaluates: every node, or
	// those a PreFilterResult names.
	candidates []fwk.NodeInfo
	narrowed   bool
	feasible   []fwk.NodeInfo
}

// preFilter starts a scheduling cycle for pod and works out the nodes the
// scheduler goes on to evaluate.
func (a *approach) preFilter(ctx context.Context, c *cycle, pod *v1.Pod, snapshot *cache.Snapshot, all []fwk.NodeInfo) error {
	c.state = framework.NewCycleState()
	res, st, unscheduled := a.fw.RunPreFilterPlugins(ctx, c.state, pod)
	if !st.IsSuccess() {
		return fmt.Errorf("%s PreFilter: %v", a.name, st.AsError())
	}
	c.candidates, c.narrowed = candidates(res, unscheduled, snapshot, all)
	return nil
}

// candidates does what the scheduler does with a PreFilterResult
// (schedule_one.go findNodesThatFitPod): every node, or the named ones
// looked up in the snapshot, the others marked with one shared status.
func candidates(res *fwk.PreFilterResult, unscheduled sets.Set[string], snapshot *cache.Snapshot, all []fwk.NodeInfo) ([]fwk.NodeInfo, bool) {
	if res.AllNodes() {
		return all, false
	}
	nodes := make([]fwk.NodeInfo, 0, len(res.NodeNames))
	for name := range res.NodeNames {
		if ni, err := snapshot.Get(name); err == nil {
			nodes = append(nodes, ni)
		}
	}
	_ = fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf("node(s) didn't satisfy plugin(s) %v", sets.List(unscheduled)))
	return nodes, true
}

// filter runs the Filter plugins on every candidate and keeps the feasible
// ones.
func (a *approach) filter(ctx context.Context, c *cycle, pod *v1.Pod) {
	c.feasible = c.feasible[:0]
	for _, ni := range c.candidates {
		if a.fw.RunFilterPlugins(ctx, c.state, pod, ni).IsSuccess() {
			c.feasible = append(c.feasible, ni)
		}
	}
}

// score runs PreScore and Score (with NormalizeScore and weights) on nodes.
func (a *approach) score(ctx context.Context, c *cycle, pod *v1.Pod, nodes []fwk.NodeInfo) ([]fwk.NodePluginScores, error) {
	if st := a.fw.RunPreScorePlugins(ctx, c.state, pod, nodes); !st.IsSuccess() {
		return nil, fmt.Errorf("%s PreScore: %v", a.name, st.AsError())
	}
	scores, st := a.fw.RunScorePlugins(ctx, c.state, pod, nodes)
	if !st.IsSuccess() {
		return nil, fmt.Errorf("%s Score: %v", a.name, st.AsError())
	}
	return scores, nil
}

// checkPlacements is the correctness gate: for every kind of pod, both
// approaches must find exactly the nodes the oracle allows feasible (after
// any PreFilterResult, as the scheduler applies it), each approach's Filter
// alone must agree with the oracle on every node, and the exact-build pool
// must rank first where there is one.
func (e *env) checkPlacements() error {
	ctx, cancel := context.WithCancel(quietContext(context.Background()))
	defer cancel()
	for _, k := range synthetic.Kinds {
		for _, a := range []*approach{e.wa, e.stock} {
			pod := k.Pod("check-"+k.Name, variantOf(a.name))
			var c cycle
			if err := a.preFilter(ctx, &c, pod, e.snapshot, e.infos); err != nil {
				return fmt.Errorf("pod %s: %w", k.Name, err)
			}
			candidate := map[string]bool{}
			for _, ni := range c.candidates {
				candidate[ni.Node().Name] = true
			}
			allowed := 0
			for _, ni := range e.infos {
				node := ni.Node()
				want := k.Allows(node)
				pass := a.fw.RunFilterPlugins(ctx, c.state, pod, ni).IsSuccess()
				if pass != want {
					return fmt.Errorf("pod %s, %s: Filter on node %s (pool %s): pass=%v, want %v",
						k.Name, a.name, node.Name, node.Labels[synthetic.LabelPool], pass, want)
				}
				if got := candidate[node.Name] && pass; got != want {
					return fmt.Errorf("pod %s, %s: node %s (pool %s): feasible=%v (candidate %v), want %v",
						k.Name, a.name, node.Name, node.Labels[synthetic.LabelPool], got, candidate[node.Name], want)
				}
				if want {
					allowed++
				}
			}
			a.filter(ctx, &c, pod)
			if len(c.feasible) != allowed || allowed == 0 {
				return fmt.Errorf("pod %s, %s: %d feasible nodes, want %d (> 0)", k.Name, a.name, len(c.feasible), allowed)
			}
			scores, err := a.score(ctx, &c, pod, c.feasible)
			if err != nil {
				return fmt.Errorf("pod %s: %w", k.Name, err)
			}
			if k.Best == "" {
				continue
			}
			var top int64 = -1
			for _, s := range scores {
				top = max(top, s.TotalScore)
			}
			for i, s := range scores {
				node := c.feasible[i].Node()
				inBest := node.Labels[synthetic.LabelPool] == k.Best
				if (s.TotalScore == top) != inBest {
					return fmt.Errorf("pod %s, %s: node %s (pool %s) scores %d, best %d; want the %s pool and only it ranked first",
						k.Name, a.name, node.Name, node.Labels[synthetic.LabelPool], s.TotalScore, top, k.Best)
				}
			}
		}
	}
	return nil
}
