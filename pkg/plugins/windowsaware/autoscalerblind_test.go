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

package windowsaware

import (
	"context"
	"fmt"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/events"
	"k8s.io/component-base/metrics/testutil"
	fwk "k8s.io/kube-scheduler/framework"
	schedulerapi "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultbinder"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/queuesort"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	tf "k8s.io/kubernetes/pkg/scheduler/testing/framework"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/pkg/plugins/ostainttoleration"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// fullNodes stands for NodeResourcesFit on nodes without room: it rejects
// them under that plugin's name, as Unschedulable.
type fullNodes struct{ names sets.Set[string] }

func (f *fullNodes) Name() string { return "NodeResourcesFit" }

func (f *fullNodes) Filter(_ context.Context, _ fwk.CycleState, _ *v1.Pod, ni fwk.NodeInfo) *fwk.Status {
	if f.names.Has(ni.Node().Name) {
		return fwk.NewStatus(fwk.Unschedulable, "Insufficient cpu")
	}
	return nil
}

// enableAtPostFilter enables a registered plugin at PostFilter. The
// testing helpers of 1.35 and 1.36 know no "PostFilter" extension
// (RegisterPluginAsExtensions skips it there without a word).
func enableAtPostFilter(name string) tf.RegisterPluginFunc {
	return func(_ *frameworkruntime.Registry, profile *schedulerapi.KubeSchedulerProfile) {
		profile.Plugins.PostFilter.Enabled = append(profile.Plugins.PostFilter.Enabled, schedulerapi.Plugin{Name: name})
	}
}

// blindRun is one unschedulable scheduling attempt through the shipped
// profile's filters and WindowsAware's PostFilter.
type blindRun struct {
	f      framework.Framework
	events *events.FakeRecorder
	nodes  []*v1.Node
}

func newBlindRun(t *testing.T, nodes []*v1.Node, full ...string) *blindRun {
	t.Helper()
	args := defaultArgs()
	withArgs := func(ctx context.Context, _ runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		return New(ctx, args, h)
	}
	resources := func(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) {
		return &fullNodes{names: sets.New(full...)}, nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	b := &blindRun{events: events.NewFakeRecorder(100), nodes: nodes}
	f, err := tf.NewFramework(ctx, []tf.RegisterPluginFunc{
		tf.RegisterQueueSortPlugin(queuesort.Name, queuesort.New),
		tf.RegisterBindPlugin(defaultbinder.Name, defaultbinder.New),
		tf.RegisterPluginAsExtensions(Name, withArgs, "PreFilter", "Filter"),
		enableAtPostFilter(Name),
		tf.RegisterPluginAsExtensions(ostainttoleration.Name, ostainttoleration.New, "Filter"),
		tf.RegisterPluginAsExtensions("NodeResourcesFit", resources, "Filter"),
	}, "windows-aware",
		frameworkruntime.WithSnapshotSharedLister(cache.NewSnapshot(nil, nodes)),
		frameworkruntime.WithEventRecorder(b.events))
	if err != nil {
		t.Fatalf("building the framework: %v", err)
	}
	b.f = f
	return b
}

// attempt runs PreFilter, Filter on the nodes PreFilter leaves (recording
// the others as the scheduler does), then PostFilter, and returns what
// PostFilter returned.
func (b *blindRun) attempt(t *testing.T, pod *v1.Pod) (*fwk.PostFilterResult, *fwk.Status) {
	t.Helper()
	ctx := context.Background()
	state := framework.NewCycleState()
	statuses := framework.NewDefaultNodeToStatus()
	preRes, s, unscheduled := b.f.RunPreFilterPlugins(ctx, state, pod)
	if s.IsSuccess() {
		if !preRes.AllNodes() {
			statuses.SetAbsentNodesStatus(fwk.NewStatus(fwk.UnschedulableAndUnresolvable,
				fmt.Sprintf("node(s) didn't satisfy plugin(s) %v", sets.List(unscheduled))))
		}
		for _, n := range b.nodes {
			if !preRes.AllNodes() && !preRes.NodeNames.Has(n.Name) {
				continue
			}
			fs := b.f.RunFilterPlugins(ctx, state, pod, nodeInfo(n))
			if fs.IsSuccess() {
				t.Fatalf("node %s fits the pod: the test wants it unschedulable", n.Name)
			}
			statuses.Set(n.Name, fs)
		}
	} else {
		statuses.SetAbsentNodesStatus(s)
	}
	return b.f.RunPostFilterPlugins(ctx, state, pod, statuses)
}

func (b *blindRun) recorded() []string {
	var got []string
	for {
		select {
		case e := <-b.events.Events:
			got = append(got, e)
		default:
			return got
		}
	}
}

func cordoned(n *v1.Node) *v1.Node {
	n.Spec.Unschedulable = true
	return n
}

var tolerateOSTaint = []v1.Toleration{{Key: "os", Operator: v1.TolerationOpEqual, Value: "windows", Effect: v1.TaintEffectNoSchedule}}

func TestPostFilterReportsPodsAutoscalersMisjudge(t *testing.T) {
	winSelector := map[string]string{v1.LabelOSStable: "windows"}
	tests := []struct {
		name  string
		pod   *v1.Pod
		nodes []*v1.Node
		full  []string // nodes without room for the pod
		// want are the parts of the Event's message; none: no Event.
		want []string
	}{
		{
			name:  "selector-less ltsc2022 pod, only Linux nodes and a 2019 node",
			pod:   pod(img2022).Obj(),
			nodes: []*v1.Node{fixture.LinuxNode("linux-a"), fixture.LinuxNode("linux-b"), fixture.WindowsNode("win2019", "10.0.17763")},
			want: []string{"the pod needs windows build 10.0.20348 (from its image tags)",
				"Enable publish mode or add nodeSelector kubernetes.io/os: windows, node.kubernetes.io/windows-build: 10.0.20348"},
		},
		{
			name:  "selector-less ltsc2022 pod, its 2022 node full, room on Linux (left out by narrowing)",
			pod:   pod(img2022).Obj(),
			nodes: []*v1.Node{fixture.LinuxNode("linux-a"), fixture.LinuxNode("linux-b"), fixture.WindowsNode("win2019", "10.0.17763"), fixture.WindowsNode("win2022", "10.0.20348")},
			full:  []string{"win2022"},
			want:  []string{"windows build 10.0.20348", "kubernetes.io/os: windows"},
		},
		{
			name:  "pod with its own OS selector, only Linux room",
			pod:   pod(img2022).NodeSelector(winSelector).Obj(),
			nodes: []*v1.Node{fixture.LinuxNode("linux-a"), fixture.WindowsNode("win2019", "10.0.17763"), fixture.WindowsNode("win2022", "10.0.20348")},
			full:  []string{"win2022"},
		},
		{
			name:  "pod rejected by resources only",
			pod:   pod(img2022).Obj(),
			nodes: []*v1.Node{fixture.WindowsNode("win2022", "10.0.20348", fixture.WithTaints()), fixture.WindowsNode("win2025", "10.0.26100", fixture.WithTaints())},
			full:  []string{"win2022", "win2025"},
		},
		{
			name:  "Linux pod rejected by resources only",
			pod:   pod(imgLinux).Obj(),
			nodes: []*v1.Node{fixture.LinuxNode("linux-a"), fixture.WindowsNode("win2022", "10.0.20348")},
			full:  []string{"linux-a"},
		},
		{
			name:  "OS selector and toleration, a 2019 node of the wrong build",
			pod:   pod(img2022).NodeSelector(winSelector).Tolerations(tolerateOSTaint).Obj(),
			nodes: []*v1.Node{fixture.LinuxNode("linux-a"), fixture.WindowsNode("win2019", "10.0.17763")},
			want:  []string{"node.kubernetes.io/windows-build: 10.0.20348"},
		},
		{
			name: "OS and build selectors",
			pod: pod(img2022).NodeSelector(map[string]string{v1.LabelOSStable: "windows", v1.LabelWindowsBuild: "10.0.20348"}).
				Tolerations(tolerateOSTaint).Obj(),
			nodes: []*v1.Node{fixture.LinuxNode("linux-a"), fixture.WindowsNode("win2019", "10.0.17763"), fixture.WindowsNode("win2022", "10.0.20348")},
			full:  []string{"win2022"},
		},
		{
			name:  "Linux pod, Linux full, an untainted Windows node",
			pod:   pod(imgLinux).Obj(),
			nodes: []*v1.Node{fixture.LinuxNode("linux-a"), fixture.WindowsNode("win2022", "10.0.20348", fixture.WithTaints())},
			full:  []string{"linux-a"},
			want:  []string{"the pod needs linux (from the scheduler's defaultOS)", "add nodeSelector kubernetes.io/os: linux"},
		},
		{
			name:  "HostProcess pod, room on Linux only",
			pod:   hostProcess(pod("busybox:1.36")),
			nodes: []*v1.Node{fixture.LinuxNode("linux-a"), fixture.WindowsNode("win2022", "10.0.20348")},
			full:  []string{"win2022"},
			want:  []string{"the pod needs windows (as a HostProcess pod)", "add nodeSelector kubernetes.io/os: windows"},
		},
		{
			name:  "the only Linux node is cordoned",
			pod:   pod(img2022).Obj(),
			nodes: []*v1.Node{cordoned(fixture.LinuxNode("linux-a")), fixture.WindowsNode("win2022", "10.0.20348")},
			full:  []string{"win2022"},
		},
		{
			name:  "a pod that contradicts itself",
			pod:   withOS(pod(img2019), v1.Linux),
			nodes: []*v1.Node{fixture.LinuxNode("linux-a")},
		},
	}
	newRegisteredPlugin(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBlindRun(t, tt.nodes, tt.full...)
			before, err := testutil.GetCounterMetricValue(AutoscalerBlindPods)
			if err != nil {
				t.Fatal(err)
			}
			res, s := b.attempt(t, tt.pod)
			if res != nil || s.Code() != fwk.Unschedulable {
				t.Errorf("PostFilter = %v, %v; want no result and Unschedulable, so that preemption decides alone", res, s)
			}
			got := b.recorded()
			after, _ := testutil.GetCounterMetricValue(AutoscalerBlindPods)
			if tt.want == nil {
				if len(got) != 0 || after != before {
					t.Errorf("events %q, counter +%v; want none", got, after-before)
				}
				return
			}
			if len(got) != 1 || after-before != 1 {
				t.Fatalf("events %q, counter +%v; want one AutoscalerBlind event and +1", got, after-before)
			}
			if !strings.HasPrefix(got[0], "Warning "+wellknown.EventAutoscalerBlind+" ") {
				t.Errorf("event %q is not a Warning %s", got[0], wellknown.EventAutoscalerBlind)
			}
			for _, w := range tt.want {
				if !strings.Contains(got[0], w) {
					t.Errorf("event %q lacks %q", got[0], w)
				}
			}
			for _, n := range tt.nodes {
				if strings.Contains(got[0], n.Name) {
					t.Errorf("event %q names node %s", got[0], n.Name)
				}
			}
		})
	}
}

// TestPostFilterReportsOncePerPod: a pod retried after each unschedulable
// attempt gets one Event and counts once; another pod gets its own.
func TestPostFilterReportsOncePerPod(t *testing.T) {
	newRegisteredPlugin(t)
	b := newBlindRun(t, []*v1.Node{fixture.LinuxNode("linux-a"), fixture.WindowsNode("win2019", "10.0.17763")})
	before, _ := testutil.GetCounterMetricValue(AutoscalerBlindPods)
	p := pod(img2022).Obj()
	for range 3 {
		b.attempt(t, p)
	}
	other := pod(img2022).Obj()
	other.Name, other.UID = "other", "other"
	b.attempt(t, other)
	after, _ := testutil.GetCounterMetricValue(AutoscalerBlindPods)
	if got := b.recorded(); len(got) != 2 || after-before != 2 {
		t.Errorf("events %q, counter +%v; want one event and one count per pod (2)", got, after-before)
	}
}
