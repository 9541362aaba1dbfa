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
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// stayingTerm is the preferred term publish mode writes for the nodes that
// are not retiring.
var stayingTerm = v1.PreferredSchedulingTerm{Weight: 100, Preference: v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{
	{Key: wellknown.LabelRetiring, Operator: v1.NodeSelectorOpNotIn, Values: []string{"true"}},
}}}

// staying adds stayingTerm after the preferred terms of a.
func staying(a *v1.Affinity) *v1.Affinity {
	if a == nil {
		a = &v1.Affinity{}
	}
	if a.NodeAffinity == nil {
		a.NodeAffinity = &v1.NodeAffinity{}
	}
	a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution, stayingTerm)
	return a
}

// preferredOf lists a pod's preferred node affinity terms.
func preferredOf(pod *v1.Pod) []v1.PreferredSchedulingTerm {
	if pod.Spec.Affinity == nil || pod.Spec.Affinity.NodeAffinity == nil {
		return nil
	}
	return pod.Spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution
}

// TestPublishPrefersStaying: at admission, a Windows pod that more than one
// build runs prefers the nodes that are not retiring, beside its build
// term; a pod only one build runs, and a pod whose own preferences name
// the build or the label, get no such term.
func TestPublishPrefersStaying(t *testing.T) {
	buildTerm := func(b string) v1.PreferredSchedulingTerm {
		return v1.PreferredSchedulingTerm{Weight: 100, Preference: v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{buildIs(b)}}}
	}
	ownTerm := v1.PreferredSchedulingTerm{Weight: 5, Preference: v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{
		{Key: wellknown.LabelRetiring, Operator: v1.NodeSelectorOpDoesNotExist},
	}}}
	anyBuild := podOf("mcr.microsoft.com/dotnet/framework/aspnet:4.8") // a manifest list: no build
	anyBuild.Spec.OS = &v1.PodOS{Name: v1.Windows}
	tests := []struct {
		name string
		pod  *v1.Pod
		want []v1.PreferredSchedulingTerm
	}{
		{name: "ltsc2022: 2022, 23H2 and 2025 run it", pod: podOf(img2022), want: []v1.PreferredSchedulingTerm{buildTerm(build22), stayingTerm}},
		{name: "a windows pod of any build", pod: anyBuild, want: []v1.PreferredSchedulingTerm{stayingTerm}},
		{name: "ltsc2019: only 2019 runs it", pod: podOf(img2019)},
		{name: "its own build preference stands, and no term joins it", pod: with(podOf(img2022), func(p *v1.Pod) {
			p.Spec.Affinity = preferring(requiredTerms([]v1.NodeSelectorRequirement{buildIs(build22)}), build25)
		}), want: []v1.PreferredSchedulingTerm{buildTerm(build25)}},
		{name: "its own preference on the label stands", pod: with(podOf(img2022), func(p *v1.Pod) {
			p.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []v1.PreferredSchedulingTerm{ownTerm}}}
		}), want: []v1.PreferredSchedulingTerm{ownTerm, buildTerm(build22)}},
		{name: "HostProcess", pod: fixture.HostProcess(podOf(img2022))},
		{name: "linux", pod: podOf(imgLinux)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := tt.pod.DeepCopy()
			newPublisher(t).Publish(pod)
			if diff := cmp.Diff(tt.want, preferredOf(pod)); diff != "" {
				t.Errorf("preferred terms (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUngateWritesStayingTerm: the gate remover writes the build term and
// the term for the nodes that are not retiring, the terms admission
// writes into a pod it need not gate (its admission policy lets it add one of each).
func TestUngateWritesStayingTerm(t *testing.T) {
	pod := with(podOf(img2022), func(p *v1.Pod) {
		p.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: wellknown.GatePlatform}}
	})
	rec, outcome, _ := newPublisher(t).Ungate(pod, nil)
	if outcome != OutcomeStamped || !rec.AvoidsRetiring {
		t.Fatalf("outcome %q, record %+v; want %q, avoidsRetiring", outcome, rec, OutcomeStamped)
	}
	want := []v1.PreferredSchedulingTerm{{Weight: 100, Preference: v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{buildIs(build22)}}}, stayingTerm}
	if diff := cmp.Diff(want, preferredOf(pod)); diff != "" {
		t.Errorf("preferred terms (-want +got):\n%s", diff)
	}
}
