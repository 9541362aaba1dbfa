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

package windowsawarepreemption

import (
	"context"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
	fwk "k8s.io/kube-scheduler/framework"
	schedulerapi "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultbinder"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/queuesort"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	tf "k8s.io/kubernetes/pkg/scheduler/testing/framework"
)

// built is the plugin as the framework builds it from a profile that
// enables it at PreEnqueue and PostFilter, over a fake clientset holding
// pods, with the framework's Activate recorded.
type built struct {
	pl        *WindowsAwarePreemption
	fh        fwk.Handle
	client    *fake.Clientset
	factory   informers.SharedInformerFactory
	activated *activations
	cancel    context.CancelFunc
}

// build builds the plugin with args (nil: none configured). It returns the
// framework's error, if any.
func build(t *testing.T, args runtime.Object, pods ...*v1.Pod) (*built, error) {
	t.Helper()
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	objs := make([]runtime.Object, len(pods))
	for i, p := range pods {
		objs[i] = p
	}
	client := fake.NewClientset(objs...)
	factory := informers.NewSharedInformerFactory(client, 0)
	activated := &activations{}
	// tf's helpers name no PreEnqueue set on every minor: the profile is
	// written here.
	enable := func(reg *frameworkruntime.Registry, profile *schedulerapi.KubeSchedulerProfile) {
		if err := reg.Register(Name, New); err != nil {
			t.Fatal(err)
		}
		profile.Plugins.PreEnqueue.Enabled = append(profile.Plugins.PreEnqueue.Enabled, schedulerapi.Plugin{Name: Name})
		profile.Plugins.PostFilter.Enabled = append(profile.Plugins.PostFilter.Enabled, schedulerapi.Plugin{Name: Name})
		if args != nil {
			profile.PluginConfig = append(profile.PluginConfig, schedulerapi.PluginConfig{Name: Name, Args: args})
		}
	}
	f, err := tf.NewFramework(ctx, []tf.RegisterPluginFunc{
		tf.RegisterQueueSortPlugin(queuesort.Name, queuesort.New),
		tf.RegisterBindPlugin(defaultbinder.Name, defaultbinder.New),
		enable,
	}, "windows-aware",
		frameworkruntime.WithClientSet(client),
		frameworkruntime.WithInformerFactory(factory),
		frameworkruntime.WithPodActivator(activated),
	)
	if err != nil {
		return nil, err
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	var pl *WindowsAwarePreemption
	for _, p := range f.PreEnqueuePlugins() {
		if p.Name() == Name {
			pl = p.(*WindowsAwarePreemption)
		}
	}
	if pl == nil {
		t.Fatalf("the framework runs no %s at PreEnqueue", Name)
	}
	return &built{pl: pl, fh: f, client: client, factory: factory, activated: activated, cancel: cancel}, nil
}

// activations records the framework's Activate calls.
type activations struct {
	mu    sync.Mutex
	calls []map[string]*v1.Pod
}

var _ fwk.PodActivator = &activations{}

func (a *activations) Activate(_ klog.Logger, pods map[string]*v1.Pod) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls = append(a.calls, pods)
}

func (a *activations) get() []map[string]*v1.Pod {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]map[string]*v1.Pod(nil), a.calls...)
}

// fakeGate stands for DefaultPreemption's PreEnqueue: it holds pods until
// it is opened, and counts the asks.
type fakeGate struct {
	mu       sync.Mutex
	open     bool
	asks     int
	lastOpen bool
}

func (g *fakeGate) PreEnqueue(_ context.Context, _ *v1.Pod) *fwk.Status {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.asks++
	g.lastOpen = g.open
	if g.open {
		return nil
	}
	return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "waiting for the preemption for this pod to be finished")
}

func (g *fakeGate) setOpen(open bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.open = open
}

// state returns the asks so far and whether the last found the gate open.
func (g *fakeGate) state() (asks int, lastOpen bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.asks, g.lastOpen
}

// running reports whether a watcher runs for the pod of uid.
func (w *watchers) isRunning(pod *v1.Pod) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.running[pod.UID]
	return ok
}

// count is how many watchers run.
func (w *watchers) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.running)
}

// eventually polls cond, in real time, until it holds or a generous
// deadline passes: what it waits for is a goroutine's next step.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}
