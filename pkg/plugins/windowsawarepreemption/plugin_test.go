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
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	fwk "k8s.io/kube-scheduler/framework"
	schedulerapi "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
)

// TestArgs: DefaultPreemptionArgs given under the plugin's name configure
// the DefaultPreemption inside, decoded as the scheduler decodes
// DefaultPreemption's own; none give upstream's defaults. The args are
// read back through what they decide: how many candidate nodes preemption
// looks at among 1,000 (max(nodes × percentage / 100, absolute), at most
// the nodes).
func TestArgs(t *testing.T) {
	const nodes = 1000
	for _, tt := range []struct {
		name           string
		args           runtime.Object
		wantCandidates int32
		wantErr        string
	}{
		{name: "none: upstream's defaults (10%, at least 100)", args: nil, wantCandidates: 100},
		{name: "empty", args: &runtime.Unknown{}, wantCandidates: 100},
		{
			name:           "JSON",
			args:           &runtime.Unknown{Raw: []byte(`{"minCandidateNodesPercentage": 50, "minCandidateNodesAbsolute": 1}`), ContentType: runtime.ContentTypeJSON},
			wantCandidates: 500,
		},
		{
			name:           "YAML, one field: the other defaulted",
			args:           &runtime.Unknown{Raw: []byte("minCandidateNodesPercentage: 30\n"), ContentType: runtime.ContentTypeYAML},
			wantCandidates: 300,
		},
		{
			name:           "with DefaultPreemption's kind",
			args:           &runtime.Unknown{Raw: []byte(`{"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "DefaultPreemptionArgs", "minCandidateNodesAbsolute": 700}`)},
			wantCandidates: 700,
		},
		{
			name:           "internal args, as a Go caller gives them",
			args:           &schedulerapi.DefaultPreemptionArgs{MinCandidateNodesPercentage: 20, MinCandidateNodesAbsolute: 0},
			wantCandidates: 200,
		},
		{
			name:    "misspelt field",
			args:    &runtime.Unknown{Raw: []byte(`{"minCandidateNodesPercent": 50}`)},
			wantErr: "minCandidateNodesPercent",
		},
		{
			name:    "out of range: upstream's validation",
			args:    &runtime.Unknown{Raw: []byte(`{"minCandidateNodesPercentage": 101}`)},
			wantErr: "minCandidateNodesPercentage",
		},
		{
			name:    "another kind",
			args:    &runtime.Unknown{Raw: []byte(`{"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "InterPodAffinityArgs"}`)},
			wantErr: "InterPodAffinityArgs",
		},
		{
			name:    "another plugin's args",
			args:    &schedulerapi.InterPodAffinityArgs{},
			wantErr: "want DefaultPreemptionArgs",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, err := build(t, tt.args)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one naming %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, got := b.pl.GetOffsetAndNumCandidates(nodes); got != tt.wantCandidates {
				t.Errorf("candidates among %d nodes = %d, want %d", nodes, got, tt.wantCandidates)
			}
		})
	}
}

// TestUpstreamsExtensionPoints: everything but Name and PreEnqueue is
// DefaultPreemption's, so the framework runs the plugin wherever it runs
// DefaultPreemption, and the queue requeues the pods it holds on the
// events DefaultPreemption registers.
func TestUpstreamsExtensionPoints(t *testing.T) {
	b, err := build(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	var pl fwk.Plugin = b.pl
	if pl.Name() != Name {
		t.Errorf("Name() = %q, want %q", pl.Name(), Name)
	}
	if _, ok := pl.(fwk.PostFilterPlugin); !ok {
		t.Error("not a PostFilter plugin")
	}
	inner, err := defaultpreemption.New(context.Background(), &schedulerapi.DefaultPreemptionArgs{MinCandidateNodesPercentage: 10, MinCandidateNodesAbsolute: 100}, b.fh, feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate))
	if err != nil {
		t.Fatal(err)
	}
	want, err := inner.EventsToRegister(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got, err := b.pl.EventsToRegister(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("EventsToRegister = %d events, DefaultPreemption's %d", len(got), len(want))
	}
	for i := range got {
		if got[i].Event != want[i].Event {
			t.Errorf("event %d = %v, DefaultPreemption's %v", i, got[i].Event, want[i].Event)
		}
	}
	// With no preemption running the pod is let through, and no watcher
	// starts.
	pod := st.MakePod().Namespace("default").Name("p").UID("p").Obj()
	if status := b.pl.PreEnqueue(context.Background(), pod); !status.IsSuccess() {
		t.Errorf("PreEnqueue = %v with no preemption running", status)
	}
	if n := b.pl.watchers.count(); n != 0 {
		t.Errorf("%d watchers, want none", n)
	}
}
