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

package publish

import (
	"encoding/json"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// TestOptIn: in a namespace that opts in, a pod that names no scheduler of
// its own becomes the profile's, through the patch the API server
// applies, a DaemonSet's pod too; a pod that names another scheduler, opts
// out, or is one the profile does not place keeps its scheduler, with no
// patch; and so does every pod while the profile's scheduler is known to
// be gone.
func TestOptIn(t *testing.T) {
	named := func(scheduler string) *v1.Pod { return fixturePod(scheduler) }
	daemonSetPod := func(p *v1.Pod) {
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "agent", UID: "ds", Controller: ptr.To(true)}}
	}
	tests := []struct {
		name     string
		pod      *v1.Pod
		presence SchedulerPresence
		optedIn  bool
		outcome  Outcome // "": OutcomeOptedIn or OutcomeSkipped, by optedIn
	}{
		{name: "default-scheduler", pod: named(v1.DefaultSchedulerName), optedIn: true},
		{name: "no scheduler named", pod: named(""), optedIn: true},
		{name: "opted out of publishing only: still the profile's", pod: with(named(""), func(p *v1.Pod) { p.Labels = map[string]string{wellknown.LabelPublish: "false"} }), optedIn: true},
		{name: "another scheduler", pod: named("gpu-scheduler"), optedIn: false},
		{name: "already the profile's", pod: named(profile), optedIn: false},
		{name: "opted out", pod: with(named(""), func(p *v1.Pod) { p.Labels = map[string]string{wellknown.LabelOptIn: "false"} }), optedIn: false},
		{name: "bound", pod: with(named(""), func(p *v1.Pod) { p.Spec.NodeName = "n1" }), optedIn: false},
		{name: "mirror", pod: with(named(""), func(p *v1.Pod) { p.Annotations = map[string]string{v1.MirrorPodAnnotationKey: "x"} }), optedIn: false},
		{name: "a DaemonSet's: its controller's affinity still picks the node", pod: with(named(""), daemonSetPod), optedIn: true},
		{name: "scheduler present", pod: named(""), presence: fakePresence{present: true, known: true}, optedIn: true},
		{name: "scheduler gone: keeps the stock scheduler", pod: named(""), presence: fakePresence{known: true}, optedIn: false, outcome: OutcomeNoScheduler},
		{name: "scheduler gone, a DaemonSet's", pod: with(named(""), daemonSetPod), presence: fakePresence{known: true}, optedIn: false, outcome: OutcomeNoScheduler},
		{name: "scheduler gone, another scheduler's anyway", pod: named("gpu-scheduler"), presence: fakePresence{known: true}, optedIn: false},
		{name: "Lease unreadable: as without it", pod: named(""), presence: fakePresence{}, optedIn: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPublisher(t)
			if tt.presence != nil {
				p.FollowScheduler(tt.presence)
			}
			req := podRequest(t, admissionv1.Create, tt.pod)
			resp, outcome := p.AdmitOptIn(klog.Background(), req)
			if !resp.Allowed {
				t.Fatalf("response %+v: want allowed", resp)
			}
			wantOutcome := map[bool]Outcome{true: OutcomeOptedIn, false: OutcomeSkipped}[tt.optedIn]
			if tt.outcome != "" {
				wantOutcome = tt.outcome
			}
			if outcome != wantOutcome {
				t.Errorf("outcome %q, want %q", outcome, wantOutcome)
			}
			got := tt.pod
			if resp.Patch != nil {
				patch, err := jsonpatch.DecodePatch(resp.Patch)
				if err != nil {
					t.Fatalf("patch %s: %v", resp.Patch, err)
				}
				patched, err := patch.Apply(req.Object.Raw)
				if err != nil {
					t.Fatalf("applying %s: %v", resp.Patch, err)
				}
				got = &v1.Pod{}
				if err := json.Unmarshal(patched, got); err != nil {
					t.Fatal(err)
				}
			}
			want := tt.pod.Spec.SchedulerName
			if tt.optedIn {
				want = profile
			}
			if got.Spec.SchedulerName != want {
				t.Errorf("schedulerName %q after admission, want %q", got.Spec.SchedulerName, want)
			}
			if !tt.optedIn && resp.Patch != nil {
				t.Errorf("patch %s for a pod that keeps its scheduler", resp.Patch)
			}
		})
	}
}

// fixturePod is an ltsc2019 pod that names scheduler.
func fixturePod(scheduler string) *v1.Pod {
	p := podOf(img2019)
	p.Spec.SchedulerName = scheduler
	return p
}

// fakePresence is a SchedulerPresence that says what it is told.
type fakePresence struct{ present, known bool }

func (f fakePresence) Present() (bool, bool) { return f.present, f.known }
