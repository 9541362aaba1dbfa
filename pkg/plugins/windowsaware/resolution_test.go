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
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	schedulerapi "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultbinder"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/queuesort"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	tf "k8s.io/kubernetes/pkg/scheduler/testing/framework"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
	"github.com/windows-aware/windows-aware/pkg/plugins/ostainttoleration"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// The os.version values of the test images: what BuildKit copies from
// servercore:ltsc2019, ltsc2022 and ltsc2025.
const (
	osv2019 = "10.0.17763.5329"
	osv2022 = "10.0.20348.2227"
	osv2025 = "10.0.26100.1742"
)

// windowsNodes are the Windows nodes of testNodes (linuxNodes the others).
var windowsNodes = []string{"win2016", "win2019", "win2022", "win2025", "win2019-kernel-only", "win-banana", "win-unknown"}

// activations records the pods the plugin hands to Handle.Activate.
type activations struct {
	mu   sync.Mutex
	pods []*v1.Pod
	keys []string
	ch   chan string
}

func newActivations() *activations { return &activations{ch: make(chan string, 1024)} }

func (a *activations) Activate(_ klog.Logger, pods map[string]*v1.Pod) {
	a.mu.Lock()
	for key, p := range pods {
		a.keys = append(a.keys, key)
		a.pods = append(a.pods, p)
	}
	a.mu.Unlock()
	for key := range pods {
		select {
		case a.ch <- key:
		default:
		}
	}
}

// await waits for the pod of key to be activated, and returns how long
// that took.
func (a *activations) await(t testing.TB, key string, within time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	deadline := time.After(within)
	for {
		select {
		case got := <-a.ch:
			if got == key {
				return time.Since(start)
			}
		case <-deadline:
			t.Fatalf("pod %s not activated within %v (activated: %v)", key, within, a.activated())
			return 0
		}
	}
}

func (a *activations) activated() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.keys)
}

// resolutionPlugin is a framework with resolution on, the plugin in it,
// and what it told the scheduler.
type resolutionPlugin struct {
	framework.Framework
	pl        *WindowsAware
	activated *activations
	events    *events.FakeRecorder
}

// newResolutionFramework builds the shipped profile's extension points,
// with PreEnqueue, over nodes, with the handle's Activate and
// EventRecorder recorded.
func newResolutionFramework(t testing.TB, args *config.WindowsAwareArgs, nodes []*v1.Node) *resolutionPlugin {
	t.Helper()
	withArgs := func(ctx context.Context, _ runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		return New(ctx, args, h)
	}
	atPreEnqueue := func(_ *frameworkruntime.Registry, profile *schedulerapi.KubeSchedulerProfile) {
		profile.Plugins.PreEnqueue.Enabled = append(profile.Plugins.PreEnqueue.Enabled, schedulerapi.Plugin{Name: Name})
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	rp := &resolutionPlugin{activated: newActivations(), events: events.NewFakeRecorder(100)}
	f, err := tf.NewFramework(ctx, []tf.RegisterPluginFunc{
		tf.RegisterQueueSortPlugin(queuesort.Name, queuesort.New),
		tf.RegisterBindPlugin(defaultbinder.Name, defaultbinder.New),
		tf.RegisterPluginAsExtensions(Name, withArgs, "PreFilter", "Filter", "PreScore", "Score"),
		atPreEnqueue,
		tf.RegisterPluginAsExtensions(ostainttoleration.Name, ostainttoleration.New, "Filter"),
	}, "windows-aware",
		frameworkruntime.WithSnapshotSharedLister(cache.NewSnapshot(nil, nodes)),
		frameworkruntime.WithPodActivator(rp.activated),
		frameworkruntime.WithEventRecorder(rp.events))
	if err != nil {
		t.Fatalf("building the framework: %v", err)
	}
	rp.Framework = f
	pls := f.PreEnqueuePlugins()
	if len(pls) != 1 {
		t.Fatalf("PreEnqueue plugins = %v, want WindowsAware alone", pls)
	}
	rp.pl = pls[0].(*WindowsAware)
	return rp
}

// recorded drains the events recorded so far.
func (rp *resolutionPlugin) recorded() []string {
	var got []string
	for {
		select {
		case e := <-rp.events.Events:
			got = append(got, e)
		default:
			return got
		}
	}
}

// feasibleNames runs PreFilter and Filter and returns the nodes that pass,
// sorted, or the PreFilter status when it fails.
func feasibleNames(t *testing.T, f framework.Framework, p *v1.Pod, nodes []*v1.Node) ([]string, *fwk.Status) {
	t.Helper()
	status, verdicts := feasible(t, f, p, nodes)
	if !status.IsSuccess() && !status.IsSkip() {
		return nil, status
	}
	var names []string
	for _, n := range nodes {
		if reasons, ok := verdicts[n.Name]; status.IsSkip() || (ok && reasons == nil) {
			names = append(names, n.Name)
		}
	}
	slices.Sort(names)
	return names, nil
}

func sorted(names ...[]string) []string {
	var all []string
	for _, n := range names {
		all = append(all, n...)
	}
	slices.Sort(all)
	return all
}

func windowsEntry(osVersion string) registrytest.Entry {
	return registrytest.Entry{OS: "windows", Arch: "amd64", OSVersion: osVersion}
}

// TestResolutionPlacesUntaggedImages: a pod whose image's tag names no
// build is held until the registry tells its platforms, woken by Activate,
// then admitted only where a build runs one of them.
func TestResolutionPlacesUntaggedImages(t *testing.T) {
	s := registrytest.New(t, registrytest.WithTLS())
	s.Push(t, "orders-api:1.4.2", registrytest.WindowsImage(t, osv2019))
	s.Push(t, "frontend:2.0", registrytest.Index(t, registrytest.OCI, windowsEntry(osv2019), windowsEntry(osv2022),
		registrytest.Entry{Attestation: true}))
	s.Push(t, "legacy:3", registrytest.Index(t, registrytest.Docker, windowsEntry("10.0.14393.6897"), windowsEntry(osv2019)))
	s.Push(t, "agent:v2.9.0", registrytest.Index(t, registrytest.Docker,
		registrytest.Entry{OS: "linux", Arch: "amd64"}, registrytest.Entry{OS: "windows", Arch: "amd64", NoConfigOSVersion: true}))
	s.Push(t, "golang:1.22", registrytest.Index(t, registrytest.Docker, registrytest.Entry{OS: "linux", Arch: "amd64"},
		registrytest.Entry{OS: "linux", Arch: "arm64"}, windowsEntry(osv2019), windowsEntry(osv2022)))
	s.Push(t, "tools:1", registrytest.Image(t, registrytest.Docker, "linux", "amd64", ""))

	nodes2025 := []*v1.Node{
		fixture.WindowsNode("win2025-a", "10.0.26100", fixture.WithKernel("10.0.26100.1742")),
		fixture.WindowsNode("win2025-b", "10.0.26100", fixture.WithKernel("10.0.26100.2033")),
	}
	tests := []struct {
		name  string
		scope string
		pod   *v1.Pod
		nodes []*v1.Node
		// wantHeld: PreEnqueue holds the pod until its image resolves.
		wantHeld     bool
		wantFeasible []string
		// wantConflict is a part of the PreFilter rejection, when the pod
		// contradicts what its registry lists.
		wantConflict string
	}{
		{
			name:         "single image built on 2019 runs on 2019 nodes alone",
			scope:        config.ResolutionWindows,
			pod:          withOS(pod(s.Ref("orders-api:1.4.2")), v1.Windows),
			wantHeld:     true,
			wantFeasible: []string{"win2019", "win2019-kernel-only"},
		},
		{
			name:         "list of 2019 and 2022 runs on 2019, 2022 and 2025 nodes",
			scope:        config.ResolutionWindows,
			pod:          withOS(pod(s.Ref("frontend:2.0")), v1.Windows),
			wantHeld:     true,
			wantFeasible: []string{"win2019", "win2019-kernel-only", "win2022", "win2025"},
		},
		{
			name:         "list with no entry a 2025 host runs fits no node of a 2025-only pool",
			scope:        config.ResolutionWindows,
			pod:          withOS(pod(s.Ref("legacy:3")), v1.Windows),
			nodes:        nodes2025,
			wantHeld:     true,
			wantFeasible: nil,
		},
		{
			name:         "entry without os.version runs on any Windows build",
			scope:        config.ResolutionWindows,
			pod:          withOS(pod(s.Ref("agent:v2.9.0")), v1.Windows),
			wantHeld:     true,
			wantFeasible: windowsNodes,
		},
		{
			name:         "Linux and Windows list keeps defaultOS",
			scope:        config.ResolutionUndeclared,
			pod:          pod(s.Ref("golang:1.22")).Obj(),
			wantHeld:     true,
			wantFeasible: linuxNodes,
		},
		{
			name:         "Windows-only image without .spec.os is a Windows pod under scope Undeclared",
			scope:        config.ResolutionUndeclared,
			pod:          pod(s.Ref("orders-api:1.4.2")).Obj(),
			wantHeld:     true,
			wantFeasible: []string{"win2019", "win2019-kernel-only"},
		},
		{
			name:         "Windows-only image without .spec.os is not resolved under scope Windows",
			scope:        config.ResolutionWindows,
			pod:          pod(s.Ref("orders-api:1.4.2")).Obj(),
			wantHeld:     false,
			wantFeasible: linuxNodes,
		},
		{
			name:         "Linux image under scope Undeclared is a Linux pod",
			scope:        config.ResolutionUndeclared,
			pod:          pod(s.Ref("tools:1")).Obj(),
			wantHeld:     true,
			wantFeasible: linuxNodes,
		},
		{
			name:         "Windows pod with a Linux-only image contradicts its registry",
			scope:        config.ResolutionWindows,
			pod:          withOS(pod(s.Ref("tools:1")), v1.Windows),
			wantHeld:     true,
			wantConflict: "has no windows platform (its registry lists linux/amd64)",
		},
		{
			name:         "tagged image is never held",
			scope:        config.ResolutionUndeclared,
			pod:          pod(img2022).Obj(),
			wantHeld:     false,
			wantFeasible: []string{"win2022", "win2025"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nodes := tt.nodes
			if nodes == nil {
				nodes = testNodes()
			}
			rp := newResolutionFramework(t, s.ResolvingArgs(tt.scope, config.OnFailureTagRules, 10*time.Second), nodes)
			ctx := context.Background()
			key := podKey(tt.pod)

			status := rp.pl.PreEnqueue(ctx, tt.pod)
			if held := !status.IsSuccess(); held != tt.wantHeld {
				t.Fatalf("PreEnqueue held = %v (%v), want %v", held, status, tt.wantHeld)
			}
			if tt.wantHeld {
				if status.Code() != fwk.UnschedulableAndUnresolvable || !strings.Contains(status.Message(), tt.pod.Spec.Containers[0].Image) {
					t.Errorf("PreEnqueue status = %v, want UnschedulableAndUnresolvable naming the image", status)
				}
				rp.activated.await(t, key, 5*time.Second)
				if s := rp.pl.PreEnqueue(ctx, tt.pod); !s.IsSuccess() {
					t.Fatalf("PreEnqueue after the image resolved = %v, want Success", s)
				}
				rp.activated.mu.Lock()
				if i := slices.Index(rp.activated.keys, key); rp.activated.pods[i] != tt.pod {
					t.Errorf("Activate got another pod object for %s", key)
				}
				rp.activated.mu.Unlock()
			}

			got, status := feasibleNames(t, rp, tt.pod, nodes)
			if tt.wantConflict != "" {
				if status == nil || status.Code() != fwk.UnschedulableAndUnresolvable || !strings.Contains(status.Message(), tt.wantConflict) {
					t.Fatalf("PreFilter = %v, want UnschedulableAndUnresolvable containing %q", status, tt.wantConflict)
				}
				return
			}
			if status != nil && !(len(tt.wantFeasible) == 0 && status.Code() == fwk.UnschedulableAndUnresolvable) {
				t.Fatalf("PreFilter = %v", status)
			}
			if want := sorted(tt.wantFeasible); !slices.Equal(got, want) {
				t.Errorf("feasible nodes = %v, want %v", got, want)
			}
			if evs := rp.recorded(); len(evs) > 0 {
				t.Errorf("events = %v, want none when the registry answered", evs)
			}
		})
	}
}

// TestResolutionFailurePolicy: a registry that does not answer holds a pod
// at most gateTimeout; then onFailure decides, with one Event per pod and
// image, and a registry that is not allowlisted is never asked.
func TestResolutionFailurePolicy(t *testing.T) {
	const gateTimeout = 300 * time.Millisecond
	hanging := registrytest.New(t, registrytest.WithTLS())
	hanging.AddFault(registrytest.Fault{Times: -1, Delay: time.Minute})
	down := registrytest.New(t, registrytest.WithTLS())
	down.Close()
	// A registry the args do not allowlist; the pods name its host.
	other := registrytest.New(t, registrytest.WithTLS())
	other.Push(t, "orders-api:1.4.2", registrytest.WindowsImage(t, osv2019))

	tests := []struct {
		name      string
		registry  *registrytest.Server
		image     string
		onFailure string
		// wantHeld: PreEnqueue holds the pod at first; wantHeldFor is the
		// least it is held then (the gate timeout, for a registry that
		// never answers).
		wantHeld    bool
		wantHeldFor time.Duration
		// wantEvent lists parts of the one Event; empty for none.
		wantEvent []string
		// wantReject lists parts of the PreFilter rejection; empty when
		// the tag rules place the pod (on every Windows node: its image
		// names no build).
		wantReject []string
	}{
		{
			name:        "registry hangs, tag rules after the gate timeout",
			registry:    hanging,
			image:       hanging.Ref("orders-api:1.4.2"),
			onFailure:   config.OnFailureTagRules,
			wantHeld:    true,
			wantHeldFor: gateTimeout,
			wantEvent:   []string{"Warning " + wellknown.EventImagePlatformsUnknown, hanging.Ref("orders-api:1.4.2"), "within 300ms", "placing the pod by its image tags"},
		},
		{
			name:        "registry hangs, Reject after the gate timeout",
			registry:    hanging,
			image:       hanging.Ref("reject:1"),
			onFailure:   config.OnFailureReject,
			wantHeld:    true,
			wantHeldFor: gateTimeout,
			wantEvent:   []string{"Warning " + wellknown.EventImagePlatformsUnknown, hanging.Ref("reject:1"), "keeping the pod unschedulable"},
			wantReject:  []string{hanging.Ref("reject:1"), "onFailure: Reject", "has not answered yet"},
		},
		{
			name:      "registry down, tag rules",
			registry:  down,
			image:     down.Ref("orders-api:1.4.2"),
			onFailure: config.OnFailureTagRules,
			wantHeld:  true,
			wantEvent: []string{"Warning " + wellknown.EventImagePlatformsUnknown, down.Ref("orders-api:1.4.2"), "connection refused", "placing the pod by its image tags"},
		},
		{
			name:       "registry down, Reject",
			registry:   down,
			image:      down.Ref("orders-api:1.4.2"),
			onFailure:  config.OnFailureReject,
			wantHeld:   true,
			wantEvent:  []string{"Warning " + wellknown.EventImagePlatformsUnknown, down.Ref("orders-api:1.4.2"), "connection refused"},
			wantReject: []string{down.Ref("orders-api:1.4.2"), "onFailure: Reject", "connection refused"},
		},
		{
			name:      "registry not allowlisted, tag rules silently",
			registry:  down,
			image:     other.Ref("orders-api:1.4.2"),
			onFailure: config.OnFailureReject,
			wantHeld:  false,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rp := newResolutionFramework(t, tt.registry.ResolvingArgs(config.ResolutionWindows, tt.onFailure, gateTimeout), testNodes())
			ctx := context.Background()
			p := withOS(pod(tt.image), v1.Windows)
			key := podKey(p)

			start := time.Now()
			status := rp.pl.PreEnqueue(ctx, p)
			if held := !status.IsSuccess(); held != tt.wantHeld {
				t.Fatalf("PreEnqueue held = %v (%v), want %v", held, status, tt.wantHeld)
			}
			if tt.wantHeld {
				rp.activated.await(t, key, gateTimeout+5*time.Second)
				// Woken at once on a failure, or by the timer at the
				// deadline; either way it passes from now on.
				for !rp.pl.PreEnqueue(ctx, p).IsSuccess() {
					if time.Since(start) > gateTimeout+2*time.Second {
						t.Fatalf("pod still held %v after the first PreEnqueue, gate timeout %v", time.Since(start), gateTimeout)
					}
					rp.activated.await(t, key, gateTimeout+5*time.Second)
				}
				if held := time.Since(start); held < tt.wantHeldFor {
					t.Errorf("pod held %v, want at least %v", held, tt.wantHeldFor)
				}
			}

			// PreFilter runs on every attempt; the Event comes once.
			for attempt := range 3 {
				got, status := feasibleNames(t, rp, p, testNodes())
				if len(tt.wantReject) > 0 {
					if status == nil || status.Code() != fwk.UnschedulableAndUnresolvable {
						t.Fatalf("attempt %d: PreFilter = %v, want UnschedulableAndUnresolvable", attempt, status)
					}
					for _, part := range tt.wantReject {
						if !strings.Contains(status.Message(), part) {
							t.Errorf("attempt %d: rejection %q does not say %q", attempt, status.Message(), part)
						}
					}
					continue
				}
				if status != nil {
					t.Fatalf("attempt %d: PreFilter = %v, want the tag rules", attempt, status)
				}
				if want := sorted(windowsNodes); !slices.Equal(got, want) {
					t.Errorf("attempt %d: feasible nodes = %v, want every Windows node %v", attempt, got, want)
				}
			}
			evs := rp.recorded()
			if len(tt.wantEvent) == 0 {
				if len(evs) > 0 {
					t.Errorf("events = %v, want none", evs)
				}
				// A pod never held is never woken either.
				time.Sleep(gateTimeout + 200*time.Millisecond)
				if got := rp.activated.activated(); !tt.wantHeld && len(got) > 0 {
					t.Errorf("Activate called for %v, a pod that was never held", got)
				}
				return
			}
			if len(evs) != 1 {
				t.Fatalf("events = %q, want exactly one", evs)
			}
			for _, part := range tt.wantEvent {
				if !strings.Contains(evs[0], part) {
					t.Errorf("event %q does not say %q", evs[0], part)
				}
			}
		})
	}
}

// TestPreEnqueueHoldsForEveryImage: a pod with two unknown images is held
// until both are known, and passes at once when only tagged images are left.
func TestPreEnqueueHoldsForEveryImage(t *testing.T) {
	s := registrytest.New(t, registrytest.WithTLS())
	s.Push(t, "a:1", registrytest.WindowsImage(t, osv2022))
	s.Push(t, "b:1", registrytest.Index(t, registrytest.OCI, windowsEntry(osv2022), windowsEntry(osv2025)))
	slow := func(r *http.Request) bool { return strings.Contains(r.URL.Path, "/b/manifests/") }
	s.AddFault(registrytest.Fault{Match: slow, Times: 1, Delay: 300 * time.Millisecond})

	rp := newResolutionFramework(t, s.ResolvingArgs(config.ResolutionWindows, config.OnFailureTagRules, 10*time.Second), testNodes())
	ctx := context.Background()
	p := withOS(pod(s.Ref("a:1"), s.Ref("b:1"), img2022), v1.Windows)
	if st := rp.pl.PreEnqueue(ctx, p); st.IsSuccess() {
		t.Fatal("PreEnqueue passed a pod whose images are unknown")
	}
	deadline := time.Now().Add(5 * time.Second)
	for !rp.pl.PreEnqueue(ctx, p).IsSuccess() {
		if time.Now().After(deadline) {
			t.Fatal("pod still held 5s after both images were asked for")
		}
		rp.activated.await(t, podKey(p), 5*time.Second)
	}
	got, status := feasibleNames(t, rp, p, testNodes())
	if status != nil {
		t.Fatalf("PreFilter = %v", status)
	}
	if want := []string{"win2022", "win2025"}; !slices.Equal(got, want) {
		t.Errorf("feasible nodes = %v, want %v", got, want)
	}
}

// warmPreEnqueue returns a plugin whose resolver knows every image of a
// Windows pod of n untagged images.
func warmPreEnqueue(tb testing.TB, n int) (*WindowsAware, *v1.Pod) {
	tb.Helper()
	s := registrytest.New(tb, registrytest.WithTLS())
	images := make([]string, n)
	for i := range images {
		images[i] = s.Ref(fmt.Sprintf("app%d:1", i))
		s.Push(tb, fmt.Sprintf("app%d:1", i), registrytest.WindowsImage(tb, osv2022))
	}
	rp := newResolutionFramework(tb, s.ResolvingArgs(config.ResolutionWindows, config.OnFailureTagRules, 10*time.Second), testNodes())
	p := withOS(pod(images...), v1.Windows)
	ctx := context.Background()
	deadline := time.Now().Add(10 * time.Second)
	for !rp.pl.PreEnqueue(ctx, p).IsSuccess() {
		if time.Now().After(deadline) {
			tb.Fatal("images not resolved within 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	return rp.pl, p
}

// TestPreEnqueueAllocations: with a warm cache PreEnqueue, which runs
// under the scheduling queue's lock, allocates nothing.
func TestPreEnqueueAllocations(t *testing.T) {
	for _, n := range []int{1, 10} {
		t.Run(fmt.Sprintf("%d images", n), func(t *testing.T) {
			pl, p := warmPreEnqueue(t, n)
			ctx := context.Background()
			allocs := testing.AllocsPerRun(1000, func() {
				if !pl.PreEnqueue(ctx, p).IsSuccess() {
					t.Fatal("PreEnqueue held a pod whose images are known")
				}
			})
			if allocs != 0 {
				t.Errorf("PreEnqueue allocates %v times with a warm cache, want 0", allocs)
			}
		})
	}
}

// BenchmarkPreEnqueue is PreEnqueue with a warm cache (target: < 1 µs and
// no allocation per pod), and for a pod that needs no resolution.
func BenchmarkPreEnqueue(b *testing.B) {
	for _, n := range []int{1, 10} {
		b.Run(fmt.Sprintf("hit/%d-images", n), func(b *testing.B) {
			pl, p := warmPreEnqueue(b, n)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if !pl.PreEnqueue(ctx, p).IsSuccess() {
					b.Fatal("held")
				}
			}
		})
	}
	b.Run("tagged", func(b *testing.B) {
		pl, _ := warmPreEnqueue(b, 1)
		p := withOS(pod(img2022), v1.Windows)
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			if !pl.PreEnqueue(ctx, p).IsSuccess() {
				b.Fatal("held")
			}
		}
	})
}
