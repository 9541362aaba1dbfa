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
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/kubernetes/pkg/apis/core"
	corev1 "k8s.io/kubernetes/pkg/apis/core/v1"
	"k8s.io/kubernetes/pkg/apis/core/validation"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// TestUngate: the update that removes the gate writes what the registry
// told, and the API server accepts it for a gated pod (KEP-3838: node
// selector additions, expressions added inside existing required terms,
// preferred terms and tolerations added, the gate removed).
func TestUngate(t *testing.T) {
	s := registrytest.New(t, registrytest.WithTLS())
	s.Push(t, "web:1.4.2", registrytest.WindowsImage(t, "10.0.17763.5329"))
	s.Push(t, "multi:2.0", registrytest.Index(t, registrytest.OCI,
		registrytest.Entry{OS: "windows", Arch: "amd64", OSVersion: "10.0.17763.5329"},
		registrytest.Entry{OS: "windows", Arch: "amd64", OSVersion: "10.0.20348.2227"}))
	s.Push(t, "tools:1", registrytest.Image(t, registrytest.Docker, "linux", "amd64", ""))
	web, multi, tools, missing := s.Ref("web:1.4.2"), s.Ref("multi:2.0"), s.Ref("tools:1"), s.Ref("missing:1")
	winTolerations := tolerationStrings(osTolerations("windows", "Windows"))

	windowsPod := func(img string) *v1.Pod {
		return with(podOf(img), func(p *v1.Pod) { p.Spec.OS = &v1.PodOS{Name: v1.Windows} })
	}
	tests := []struct {
		name      string
		scope     string
		onFailure string
		pod       *v1.Pod
		// resolveWithin bounds Resolve.
		resolveWithin time.Duration
		outcome       Outcome
		wantErr       bool
		// wantSelector, wantRequired and wantPreferred are the pod's
		// node selector and node affinity after the update; nil where
		// unchanged from the gated pod.
		wantSelector    map[string]string
		wantRequired    *v1.NodeSelector
		wantPreferred   []v1.PreferredSchedulingTerm
		wantTolerations []v1.Toleration
		wantGates       []v1.PodSchedulingGate
		wantRecord      wellknown.Record
	}{
		{
			name:         "a Windows image built on 2019: the build is required, the record says registry",
			scope:        config.ResolutionWindows,
			pod:          windowsPod(web),
			outcome:      OutcomeStamped,
			wantRequired: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{buildIs(build19)}}}},
			wantRecord:   wellknown.Record{Source: "registry", OS: "windows", Builds: []string{build19}, Tolerations: winTolerations},
		},
		{
			name:         "an index of 2019 and 2022: four host builds, the plugin's target preferred",
			scope:        config.ResolutionWindows,
			pod:          windowsPod(multi),
			outcome:      OutcomeStamped,
			wantRequired: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{buildIs(build19, build22, build23, build25)}}}},
			wantPreferred: []v1.PreferredSchedulingTerm{{Weight: preferredWeight, Preference: v1.NodeSelectorTerm{
				MatchExpressions: []v1.NodeSelectorRequirement{buildIs(build22)}}}, stayingTerm},
			wantRecord: wellknown.Record{Source: "registry", OS: "windows", Builds: []string{build19, build22, build23, build25}, Preferred: build22, Tolerations: winTolerations, AvoidsRetiring: true},
		},
		{
			name:  "existing required terms: the build goes inside each, an empty term stays empty",
			scope: config.ResolutionWindows,
			pod: with(windowsPod(web), func(p *v1.Pod) {
				p.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
					NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{zoneIs("a")}}, {}},
				}}}
			}),
			outcome: OutcomeStamped,
			wantRequired: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{
				{MatchExpressions: []v1.NodeSelectorRequirement{zoneIs("a"), buildIs(build19)}}, {},
			}},
			wantRecord: wellknown.Record{Source: "registry", OS: "windows", Builds: []string{build19}, Tolerations: winTolerations},
		},
		{
			name:            "undeclared pod of a Linux-only image: the OS selector is added at ungating",
			scope:           config.ResolutionUndeclared,
			pod:             podOf(tools),
			outcome:         OutcomeStamped,
			wantSelector:    map[string]string{v1.LabelOSStable: "linux"},
			wantTolerations: osTolerations("linux", "Linux"),
			wantRecord:      wellknown.Record{Source: "registry", OS: "linux", Tolerations: tolerationStrings(osTolerations("linux", "Linux"))},
		},
		{
			name:  "the pod's own build selector contradicts the registry: nothing written, the gate removed",
			scope: config.ResolutionWindows,
			pod: with(windowsPod(web), func(p *v1.Pod) {
				p.Spec.NodeSelector = map[string]string{v1.LabelWindowsBuild: build22}
			}),
			outcome: OutcomeConflict,
		},
		{
			name:          "the registry has no such image, onFailure TagRules: what the spec says, any build but a retiring one preferred, and the fallback recorded",
			scope:         config.ResolutionWindows,
			pod:           windowsPod(missing),
			outcome:       OutcomeStamped,
			wantErr:       true,
			resolveWithin: 10 * time.Second,
			wantPreferred: []v1.PreferredSchedulingTerm{stayingTerm},
			wantRecord:    wellknown.Record{Source: "spec", OS: "windows", Tolerations: winTolerations, AvoidsRetiring: true, Fallback: config.OnFailureTagRules},
		},
		{
			name:      "the registry has no such image, onFailure Reject: nothing written, for the scheduler to reject",
			scope:     config.ResolutionWindows,
			onFailure: config.OnFailureReject,
			pod:       windowsPod(missing),
			outcome:   OutcomeConflict,
			wantErr:   true,
		},
		{
			name:  "another gate stays",
			scope: config.ResolutionWindows,
			pod: with(windowsPod(web), func(p *v1.Pod) {
				p.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "example.com/quota"}}
			}),
			outcome:      OutcomeStamped,
			wantRequired: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{buildIs(build19)}}}},
			wantGates:    []v1.PodSchedulingGate{{Name: "example.com/quota"}},
			wantRecord:   wellknown.Record{Source: "registry", OS: "windows", Builds: []string{build19}, Tolerations: winTolerations},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			onFailure := tt.onFailure
			if onFailure == "" {
				onFailure = config.OnFailureTagRules
			}
			args := s.ResolvingArgs(tt.scope, onFailure, 10*time.Second)

			// The pod as admission stored it.
			admission, err := New(profile, args)
			if err != nil {
				t.Fatal(err)
			}
			gated := tt.pod.DeepCopy()
			gated.Namespace, gated.ResourceVersion, gated.UID = "default", "1", "uid-1"
			if _, outcome := admission.Publish(gated); outcome != OutcomeGated {
				t.Fatalf("admission outcome %q, want gated", outcome)
			}
			if gated.Labels[wellknown.LabelGated] != "true" {
				t.Fatalf("gated pod lacks the label %s=true: %v", wellknown.LabelGated, gated.Labels)
			}

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			p, err := NewResolving(ctx, profile, args, nil)
			if err != nil {
				t.Fatal(err)
			}
			within := tt.resolveWithin
			if within == 0 {
				within = 10 * time.Second
			}
			resolveCtx, stop := context.WithTimeout(ctx, within)
			defer stop()
			resolveErr := p.Resolve(resolveCtx, gated)
			if (resolveErr != nil) != tt.wantErr {
				t.Fatalf("Resolve: %v, want an error: %v", resolveErr, tt.wantErr)
			}

			updated := gated.DeepCopy()
			rec, outcome, _ := p.Ungate(updated, resolveErr)
			if outcome != tt.outcome {
				t.Fatalf("outcome %q, want %q (record %s)", outcome, tt.outcome, rec.String())
			}
			if errs := validateUpdate(t, updated, gated); len(errs) > 0 {
				t.Fatalf("the API server would refuse the update: %v", errs)
			}
			if Gated(updated) || updated.Labels[wellknown.LabelGated] != "" {
				t.Errorf("still gated: gates %v, labels %v", updated.Spec.SchedulingGates, updated.Labels)
			}
			if diff := cmp.Diff(tt.wantGates, updated.Spec.SchedulingGates); diff != "" {
				t.Errorf("gates (-want +got):\n%s", diff)
			}
			want := gated.DeepCopy()
			want.Spec.SchedulingGates = updated.Spec.SchedulingGates
			delete(want.Labels, wellknown.LabelGated)
			if outcome == OutcomeConflict {
				if diff := cmp.Diff(want, updated); diff != "" {
					t.Fatalf("a conflicting pod got more than its gate removed (-want +got):\n%s", diff)
				}
				return
			}
			if tt.wantSelector != nil {
				want.Spec.NodeSelector = tt.wantSelector
			}
			if tt.wantTolerations != nil {
				want.Spec.Tolerations = tt.wantTolerations
			}
			if tt.wantRequired != nil || tt.wantPreferred != nil {
				if want.Spec.Affinity == nil {
					want.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{}}
				}
				if tt.wantRequired != nil {
					want.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = tt.wantRequired
				}
				want.Spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = tt.wantPreferred
			}
			want.Annotations[wellknown.AnnotationPublished] = tt.wantRecord.String()
			if diff := cmp.Diff(want, updated); diff != "" {
				t.Errorf("ungated pod (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantRecord, rec); diff != "" {
				t.Errorf("record (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUngateWithoutTheGate: a pod someone else ungated keeps its spec;
// only the label goes.
func TestUngateWithoutTheGate(t *testing.T) {
	p := newPublisher(t)
	pod := with(podOf("contoso.azurecr.io/web:1.4.2"), func(p *v1.Pod) { p.Labels = map[string]string{wellknown.LabelGated: "true", "app": "web"} })
	got := pod.DeepCopy()
	if _, outcome, _ := p.Ungate(got, nil); outcome != OutcomeSkipped {
		t.Fatalf("outcome %q, want skipped", outcome)
	}
	want := with(pod.DeepCopy(), func(p *v1.Pod) { p.Labels = map[string]string{"app": "web"} })
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// validateUpdate runs the API server's validation of a pod update on
// defaulted copies of the pods.
func validateUpdate(t *testing.T, newPod, oldPod *v1.Pod) []error {
	t.Helper()
	internal := func(p *v1.Pod) *core.Pod {
		p = p.DeepCopy()
		corev1.SetObjectDefaults_Pod(p)
		var out core.Pod
		if err := corev1.Convert_v1_Pod_To_core_Pod(p, &out, nil); err != nil {
			t.Fatal(err)
		}
		return &out
	}
	var errs []error
	for _, e := range validation.ValidatePodUpdate(internal(newPod), internal(oldPod), validation.PodValidationOptions{}) {
		errs = append(errs, e)
	}
	return errs
}

// TestValidateUpdateBites: the validation TestUngate relies on refuses
// what the rules for gated pods forbid, so that its silence means
// something.
func TestValidateUpdateBites(t *testing.T) {
	gated := with(podOf("contoso.azurecr.io/web:1.4.2"), func(p *v1.Pod) {
		p.Namespace, p.ResourceVersion = "default", "1"
		p.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: wellknown.GatePlatform}}
		p.Spec.NodeSelector = map[string]string{v1.LabelOSStable: "windows"}
		p.Spec.Affinity = requiredTerms([]v1.NodeSelectorRequirement{zoneIs("a")})
	})
	tests := []struct {
		name   string
		change func(*v1.Pod)
	}{
		{name: "a required term added", change: func(p *v1.Pod) {
			terms := &p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
			*terms = append(*terms, v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{buildIs(build19)}})
		}},
		{name: "a node selector changed", change: func(p *v1.Pod) { p.Spec.NodeSelector[v1.LabelOSStable] = "linux" }},
		{name: "an expression replaced", change: func(p *v1.Pod) {
			p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions[0] = buildIs(build19)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			updated := gated.DeepCopy()
			tt.change(updated)
			updated.Spec.SchedulingGates = nil
			if errs := validateUpdate(t, updated, gated); len(errs) == 0 {
				t.Errorf("validation accepted it")
			}
		})
	}
}

// TestManualUngatePatch: the patch docs/publish-mode.md and
// docs/troubleshoot.md give for removing the gate by hand removes it
// alone, wherever it is in the list.
func TestManualUngatePatch(t *testing.T) {
	const manualPatch = `{"metadata":{"labels":{"windows-aware.x-k8s.io/gated":null}},"spec":{"schedulingGates":[{"$patch":"delete","name":"windows-aware.x-k8s.io/platform"}]}}`
	pod := with(podOf("contoso.azurecr.io/web:1.4.2"), func(p *v1.Pod) {
		p.Labels = map[string]string{wellknown.LabelGated: "true", "app": "web"}
		p.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "example.com/quota"}, {Name: wellknown.GatePlatform}}
	})
	before, err := json.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	after, err := strategicpatch.StrategicMergePatch(before, []byte(manualPatch), v1.Pod{})
	if err != nil {
		t.Fatal(err)
	}
	var got v1.Pod
	if err := json.Unmarshal(after, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]v1.PodSchedulingGate{{Name: "example.com/quota"}}, got.Spec.SchedulingGates); diff != "" {
		t.Errorf("gates (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"app": "web"}, got.Labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
}
