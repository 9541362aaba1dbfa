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
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/testutil"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
	"github.com/windows-aware/windows-aware/pkg/publish"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

const profile = "windows-aware"

// TestController: gated pods come out ungated, with what their registry
// told written in, or with the fallback and one Warning Event; a conflict
// on the update is retried on a fresh read.
func TestController(t *testing.T) {
	s := registrytest.New(t, registrytest.WithTLS())
	s.Push(t, "web:1.4.2", registrytest.WindowsImage(t, "10.0.17763.5329"))

	tests := []struct {
		name      string
		onFailure string
		image     string
		// conflicts is how many updates the API server refuses with a
		// conflict first.
		conflicts int
		// manual removes the gate before the controller starts.
		manual bool
		// nodeSelector is the pod's own.
		nodeSelector map[string]string
		wantOutcome  Outcome
		// wantBuilds is the required build expression's values, nil for
		// none; wantEvent a part of the one Warning Event, "" for none.
		wantBuilds []string
		wantEvent  string
	}{
		{name: "resolved", image: s.Ref("web:1.4.2"), wantOutcome: OutcomeResolved, wantBuilds: []string{"10.0.17763"}},
		{name: "resolved after two conflicts", image: s.Ref("web:1.4.2"), conflicts: 2, wantOutcome: OutcomeResolved, wantBuilds: []string{"10.0.17763"}},
		{
			name: "no such image: the tags decide, one Warning Event naming image and error", image: s.Ref("missing:1"),
			wantOutcome: OutcomeFallback,
			wantEvent:   `Warning ImagePlatformsUnknown could not read the platforms of image "` + s.Ref("missing:1") + `": registry has no such image`,
		},
		{
			name: "no such image under Reject: nothing written", image: s.Ref("missing:2"), onFailure: config.OnFailureReject,
			wantOutcome: OutcomeRejected,
			wantEvent:   "the scheduler keeps the pod unschedulable until the registry tells (onFailure: Reject)",
		},
		{name: "ungated by hand: the label goes, nothing else", image: s.Ref("web:1.4.2"), manual: true, wantOutcome: OutcomeRemovedElsewhere},
		{
			name: "the pod's own selector contradicts its image: nothing written, the Event names both", image: s.Ref("web:1.4.2"),
			nodeSelector: map[string]string{v1.LabelWindowsBuild: "10.0.20348"},
			wantOutcome:  OutcomeConflict,
			wantEvent:    `requires node.kubernetes.io/windows-build in [10.0.20348], but image "` + s.Ref("web:1.4.2") + `" needs 10.0.17763`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			onFailure := tt.onFailure
			if onFailure == "" {
				onFailure = config.OnFailureTagRules
			}
			args := s.ResolvingArgs(config.ResolutionWindows, onFailure, 5*time.Second)

			admission, err := publish.New(profile, args)
			if err != nil {
				t.Fatal(err)
			}
			pod := &v1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "uid-web", CreationTimestamp: metav1.Now()},
				Spec: v1.PodSpec{SchedulerName: profile, OS: &v1.PodOS{Name: v1.Windows}, NodeSelector: tt.nodeSelector,
					Containers: []v1.Container{{Name: "web", Image: tt.image}}},
			}
			if _, outcome := admission.Publish(pod); outcome != publish.OutcomeGated {
				t.Fatalf("admission: %q, want gated", outcome)
			}
			if tt.manual {
				pod.Spec.SchedulingGates = nil
			}
			pod.ResourceVersion = "1"
			client := fake.NewClientset(pod)
			enforceResourceVersion(client)
			var refused atomic.Int32
			client.PrependReactor("patch", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
				if int(refused.Add(1)) <= tt.conflicts {
					return true, nil, apierrors.NewConflict(v1.Resource("pods"), "web", nil)
				}
				return false, nil, nil
			})

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			p, err := publish.NewResolving(ctx, profile, args, nil)
			if err != nil {
				t.Fatal(err)
			}
			recorder := events.NewFakeRecorder(10)
			before := testCount(t, tt.wantOutcome)
			c := New(client, p, recorder, Options{Workers: 2})
			done := make(chan error, 1)
			go func() { done <- c.Run(ctx) }()

			var got *v1.Pod
			if err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
				got, err = client.CoreV1().Pods("default").Get(ctx, "web", metav1.GetOptions{})
				return err == nil && got.Labels[wellknown.LabelGated] == "", err
			}); err != nil {
				t.Fatalf("the pod was not ungated: %v", err)
			}
			if publish.Gated(got) {
				t.Fatalf("the gate stayed: %v", got.Spec.SchedulingGates)
			}
			var builds []string
			if a := got.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
				for _, e := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions {
					if e.Key == v1.LabelWindowsBuild {
						builds = e.Values
					}
				}
			}
			if strings.Join(builds, ",") != strings.Join(tt.wantBuilds, ",") {
				t.Errorf("required builds %v, want %v", builds, tt.wantBuilds)
			}
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if d := testCount(t, tt.wantOutcome) - before; d != 1 {
				t.Errorf("ungated_pods_total{outcome=%q} grew by %v, want 1", tt.wantOutcome, d)
			}
			var recorded []string
			for len(recorder.Events) > 0 {
				recorded = append(recorded, <-recorder.Events)
			}
			switch {
			case tt.wantEvent == "" && len(recorded) > 0:
				t.Errorf("events %q, want none", recorded)
			case tt.wantEvent != "" && (len(recorded) != 1 || !strings.Contains(recorded[0], tt.wantEvent)):
				t.Errorf("events %q, want one with %q", recorded, tt.wantEvent)
			}
		})
	}
}

// testCount reads the ungated counter of outcome.
func testCount(t *testing.T, outcome Outcome) float64 {
	t.Helper()
	v, err := testutil.GetCounterMetricValue(Ungated.WithLabelValues(string(outcome)))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestMain(m *testing.M) {
	RegisterMetrics(metrics.NewKubeRegistry())
	os.Exit(m.Run())
}
