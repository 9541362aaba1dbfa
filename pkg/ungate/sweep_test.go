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

package ungate

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
	"github.com/windows-aware/windows-aware/pkg/publish"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// TestSweep: pods that carry the gate without the label, which the watch
// of the label never sees, are found by the sweep the controller starts
// with, a page at a time, and ungated as labelled pods are: the registry's
// build written, or the tag rules with one Warning Event, the outcome
// counted; other gates stay. Pods without our gate are left alone.
func TestSweep(t *testing.T) {
	s := registrytest.New(t, registrytest.WithTLS())
	s.Push(t, "web:1.4.2", registrytest.WindowsImage(t, "10.0.17763.5329"))
	args := s.ResolvingArgs(config.ResolutionWindows, config.OnFailureTagRules, 5*time.Second)
	withoutLabel := func(p *v1.Pod) { delete(p.Labels, wellknown.LabelGated) }

	tests := []struct {
		name  string
		image string
		// change turns the pod as the webhook gated it into the pod of
		// the case.
		change func(*v1.Pod)
		// wantGates are the pod's gates at the end; wantBuilds its
		// required builds, joined; wantEvent a part of its one Warning
		// Event, "" for none.
		wantGates  []string
		wantBuilds string
		wantEvent  string
	}{
		{name: "created with the gate, no label", image: s.Ref("web:1.4.2"), change: withoutLabel, wantBuilds: "10.0.17763"},
		{name: "the label set to another value", image: s.Ref("web:1.4.2"), wantBuilds: "10.0.17763",
			change: func(p *v1.Pod) { p.Labels[wellknown.LabelGated] = "false" }},
		{name: "no label, between other gates: they stay", image: s.Ref("web:1.4.2"), wantBuilds: "10.0.17763",
			change: func(p *v1.Pod) {
				withoutLabel(p)
				p.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "example.com/first"}, {Name: wellknown.GatePlatform}, {Name: "example.com/last"}}
			},
			wantGates: []string{"example.com/first", "example.com/last"}},
		{name: "no label, no such image: the tags decide, one Warning Event", image: s.Ref("missing:1"), change: withoutLabel,
			wantEvent: `Warning ImagePlatformsUnknown could not read the platforms of image "` + s.Ref("missing:1") + `": registry has no such image`},
		{name: "labelled: the watch's, as before", image: s.Ref("web:1.4.2"), change: func(*v1.Pod) {}, wantBuilds: "10.0.17763"},
		{name: "another gate only: left alone", image: s.Ref("web:1.4.2"),
			change: func(p *v1.Pod) {
				withoutLabel(p)
				p.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "example.com/other"}}
			},
			wantGates: []string{"example.com/other"}},
	}
	client := fake.NewClientset()
	names := map[string]string{}
	for i, tt := range tests {
		pod := gatedPod(t, args, tt.image, metav1.Now())
		pod.Name = string(rune('a'+i)) + "-web"
		pod.Namespace = []string{"ns1", "ns2", "ns3"}[i%3]
		pod.UID = types.UID(pod.Namespace + "/" + pod.Name)
		tt.change(pod)
		if err := client.Tracker().Add(pod); err != nil {
			t.Fatal(err)
		}
		names[tt.name] = pod.Namespace + "/" + pod.Name
	}
	enforceResourceVersion(client)
	selectWatches(client)
	var lists []metav1.ListOptions
	pageLists(client, &lists)
	resolved, fallback := testCount(t, OutcomeResolved), testCount(t, OutcomeFallback)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p, err := publish.NewResolving(ctx, profile, args, nil)
	if err != nil {
		t.Fatal(err)
	}
	recorder := events.NewFakeRecorder(10)
	c := New(client, p, recorder, Options{Workers: 2, Sweep: time.Hour, PageSize: 2})
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	pods := map[string]*v1.Pod{}
	if err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 20*time.Second, true, func(ctx context.Context) (bool, error) {
		for _, tt := range tests {
			ns, name, _ := strings.Cut(names[tt.name], "/")
			got, err := client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			if !slices.Equal(gateNames(got), tt.wantGates) {
				return false, nil
			}
			pods[tt.name] = got
		}
		return true, nil
	}); err != nil {
		for _, tt := range tests {
			ns, name, _ := strings.Cut(names[tt.name], "/")
			t.Logf("%s: gates %v, want %v", tt.name, gateNames(getPod(t, client, ns, name)), tt.wantGates)
		}
		t.Fatalf("the pods were not ungated: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var recorded []string
	for len(recorder.Events) > 0 {
		recorded = append(recorded, <-recorder.Events)
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := pods[tt.name]
			if _, ok := got.Labels[wellknown.LabelGated]; ok {
				t.Errorf("keeps the label %s", wellknown.LabelGated)
			}
			if b := requiredBuildsOf(got); b != tt.wantBuilds {
				t.Errorf("required builds %q, want %q", b, tt.wantBuilds)
			}
			var events []string
			for _, e := range recorded {
				if strings.Contains(e, `"`+tt.image+`"`) {
					events = append(events, e)
				}
			}
			switch {
			case tt.wantEvent == "" && len(events) > 0:
				t.Errorf("events %q, want none", events)
			case tt.wantEvent != "" && (len(events) != 1 || !strings.Contains(events[0], tt.wantEvent)):
				t.Errorf("events %q, want one with %q", events, tt.wantEvent)
			}
		})
	}
	if d := testCount(t, OutcomeResolved) - resolved; d != 4 {
		t.Errorf("ungated_pods_total{outcome=resolved} grew by %v, want 4", d)
	}
	if d := testCount(t, OutcomeFallback) - fallback; d != 1 {
		t.Errorf("ungated_pods_total{outcome=fallback} grew by %v, want 1", d)
	}
	// The sweep: every pod, by no selector, two at a time, to the end.
	var sweep []metav1.ListOptions
	for _, l := range lists {
		if l.LabelSelector == "" {
			sweep = append(sweep, l)
		}
	}
	if len(sweep) != (len(tests)+1)/2 || slices.ContainsFunc(sweep, func(l metav1.ListOptions) bool { return l.Limit != 2 }) {
		t.Errorf("the sweep's lists %+v, want %d of 2 pods each", sweep, (len(tests)+1)/2)
	}
}

// TestSweepPeriodic: a pod gated without the label after the controller
// started, which neither its watch nor its first sweep saw, is ungated by
// a later sweep.
func TestSweepPeriodic(t *testing.T) {
	s := registrytest.New(t, registrytest.WithTLS())
	s.Push(t, "web:1.4.2", registrytest.WindowsImage(t, "10.0.17763.5329"))
	args := s.ResolvingArgs(config.ResolutionWindows, config.OnFailureTagRules, 5*time.Second)
	client := fake.NewClientset()
	enforceResourceVersion(client)
	selectWatches(client)
	sweeps := make(chan struct{}, 100)
	client.PrependReactor("list", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
		if action.(k8stesting.ListActionImpl).ListOptions.LabelSelector == "" {
			select {
			case sweeps <- struct{}{}:
			default:
			}
		}
		return false, nil, nil
	})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p, err := publish.NewResolving(ctx, profile, args, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := New(client, p, events.NewFakeRecorder(10), Options{Workers: 1, Sweep: 10 * time.Millisecond})
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	select { // the first sweep has listed the empty cluster
	case <-sweeps:
	case <-time.After(20 * time.Second):
		t.Fatal("the controller never listed every pod")
	}

	pod := gatedPod(t, args, s.Ref("web:1.4.2"), metav1.Now())
	delete(pod.Labels, wellknown.LabelGated)
	if err := client.Tracker().Add(pod); err != nil {
		t.Fatal(err)
	}
	var got *v1.Pod
	if err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 20*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err = client.CoreV1().Pods("default").Get(ctx, "web", metav1.GetOptions{})
		return err == nil && !publish.Gated(got), err
	}); err != nil {
		t.Fatalf("the pod was not ungated: %v", err)
	}
	if b := requiredBuildsOf(got); b != "10.0.17763" {
		t.Errorf("required builds %q, want 10.0.17763", b)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// selectWatches makes the fake API server's pod watches send only the
// pods their label selector selects, as the real one's do (the fake sends
// every pod): a pod without the label then reaches the controller by its
// sweep alone.
func selectWatches(client *fake.Clientset) {
	client.PrependWatchReactor("pods", func(action k8stesting.Action) (bool, watch.Interface, error) {
		a := action.(k8stesting.WatchActionImpl)
		w, err := client.Tracker().Watch(a.GetResource(), a.GetNamespace(), a.ListOptions)
		if err != nil {
			return true, nil, err
		}
		selector := a.WatchRestrictions.Labels
		if selector == nil {
			selector = labels.Everything()
		}
		return true, watch.Filter(w, func(e watch.Event) (watch.Event, bool) {
			pod, ok := e.Object.(*v1.Pod)
			return e, !ok || selector.Matches(labels.Set(pod.Labels))
		}), nil
	})
}
