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
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/apis/config/scheme"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

const (
	profile  = "windows-aware"
	img2019  = "mcr.microsoft.com/windows/servercore:ltsc2019"
	img2022  = "mcr.microsoft.com/windows/nanoserver:ltsc2022"
	img2025  = "mcr.microsoft.com/windows/server:ltsc2025"
	imgLinux = "nginx:1.27"
	build19  = "10.0.17763"
	build22  = "10.0.20348"
	build23  = "10.0.25398" // Windows Server 23H2: a host-only build that runs ltsc2022 images
	build25  = "10.0.26100"
)

func newPublisher(t testing.TB, mutate ...func(*config.WindowsAwareArgs)) *Publisher {
	t.Helper()
	args := scheme.DefaultArgs()
	for _, m := range mutate {
		m(args)
	}
	p, err := New(profile, args)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// osTolerations are the tolerations written for os by default: keys os
// and node.kubernetes.io/os, NoSchedule, both spellings.
func osTolerations(os, title string) []v1.Toleration {
	var out []v1.Toleration
	for _, key := range []string{"os", "node.kubernetes.io/os"} {
		for _, value := range []string{os, title} {
			out = append(out, v1.Toleration{Key: key, Operator: v1.TolerationOpEqual, Value: value, Effect: v1.TaintEffectNoSchedule})
		}
	}
	return out
}

func tolerationStrings(ts []v1.Toleration) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Key+"="+t.Value+":"+string(t.Effect))
	}
	return out
}

func buildIs(builds ...string) v1.NodeSelectorRequirement {
	return v1.NodeSelectorRequirement{Key: v1.LabelWindowsBuild, Operator: v1.NodeSelectorOpIn, Values: builds}
}

func zoneIs(zone string) v1.NodeSelectorRequirement {
	return v1.NodeSelectorRequirement{Key: v1.LabelTopologyZone, Operator: v1.NodeSelectorOpIn, Values: []string{zone}}
}

func requiredTerms(terms ...[]v1.NodeSelectorRequirement) *v1.Affinity {
	sel := &v1.NodeSelector{}
	for _, t := range terms {
		sel.NodeSelectorTerms = append(sel.NodeSelectorTerms, v1.NodeSelectorTerm{MatchExpressions: t})
	}
	return &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: sel}}
}

func preferring(a *v1.Affinity, build string) *v1.Affinity {
	a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = []v1.PreferredSchedulingTerm{
		{Weight: 100, Preference: v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{buildIs(build)}}},
	}
	return a
}

func podOf(images ...string) *v1.Pod { return fixture.Pod("p", profile, images...) }

func with(p *v1.Pod, change func(*v1.Pod)) *v1.Pod {
	change(p)
	return p
}

func TestPublish(t *testing.T) {
	winTolerations := osTolerations("windows", "Windows")
	linuxTolerations := osTolerations("linux", "Linux")
	registry := func(scope string) func(*config.WindowsAwareArgs) {
		return func(a *config.WindowsAwareArgs) {
			a.ImageResolution.Scope = scope
			a.ImageResolution.GateTimeout = metav1.Duration{Duration: 10 * time.Second}
			a.ImageResolution.Registries = []config.RegistryHost{{Host: "mcr.microsoft.com"}, {Host: "*.azurecr.io"}}
		}
	}
	tests := []struct {
		name    string
		args    []func(*config.WindowsAwareArgs)
		pod     *v1.Pod
		outcome Outcome
		// The pod's scheduling fields after publishing; a nil want* is
		// what the pod had.
		wantSelector    map[string]string
		wantAffinity    *v1.Affinity
		wantTolerations []v1.Toleration
		wantGates       []v1.PodSchedulingGate
		wantRecord      wellknown.Record
	}{
		{
			name: "selector-less ltsc2019", pod: podOf(img2019), outcome: OutcomeStamped,
			wantSelector:    map[string]string{v1.LabelOSStable: "windows"},
			wantAffinity:    requiredTerms([]v1.NodeSelectorRequirement{buildIs(build19)}),
			wantTolerations: winTolerations,
			wantRecord:      wellknown.Record{Source: "tag", OS: "windows", Builds: []string{build19}, Tolerations: tolerationStrings(winTolerations)},
		},
		{
			name: "ltsc2022: 2022, 23H2 and 2025 hosts, 2022 preferred", pod: podOf(img2022), outcome: OutcomeStamped,
			wantSelector:    map[string]string{v1.LabelOSStable: "windows"},
			wantAffinity:    staying(preferring(requiredTerms([]v1.NodeSelectorRequirement{buildIs(build22, build23, build25)}), build22)),
			wantTolerations: winTolerations,
			wantRecord:      wellknown.Record{Source: "tag", OS: "windows", Builds: []string{build22, build23, build25}, Preferred: build22, Tolerations: tolerationStrings(winTolerations), AvoidsRetiring: true},
		},
		{
			name: "ltsc2022 under exact compatibility: 2022 only", pod: podOf(img2022), outcome: OutcomeStamped,
			args:            []func(*config.WindowsAwareArgs){func(a *config.WindowsAwareArgs) { a.CompatibilityMode = "exact" }},
			wantSelector:    map[string]string{v1.LabelOSStable: "windows"},
			wantAffinity:    requiredTerms([]v1.NodeSelectorRequirement{buildIs(build22)}),
			wantTolerations: winTolerations,
			wantRecord:      wellknown.Record{Source: "tag", OS: "windows", Builds: []string{build22}, Tolerations: tolerationStrings(winTolerations)},
		},
		{
			name: "multi-image: ltsc2022 init and ltsc2025 main need a 2025 host", outcome: OutcomeStamped,
			pod:             with(podOf(img2025), func(p *v1.Pod) { p.Spec.InitContainers = []v1.Container{{Name: "init", Image: img2022}} }),
			wantSelector:    map[string]string{v1.LabelOSStable: "windows"},
			wantAffinity:    requiredTerms([]v1.NodeSelectorRequirement{buildIs(build25)}),
			wantTolerations: winTolerations,
			wantRecord:      wellknown.Record{Source: "tag", OS: "windows", Builds: []string{build25}, Tolerations: tolerationStrings(winTolerations)},
		},
		{
			name: "HostProcess: the OS, no build", pod: fixture.HostProcess(podOf(img2019)), outcome: OutcomeStamped,
			wantSelector:    map[string]string{v1.LabelOSStable: "windows"},
			wantTolerations: winTolerations,
			wantRecord:      wellknown.Record{Source: "tag", OS: "windows", Tolerations: tolerationStrings(winTolerations)},
		},
		{
			name: "Linux pod by defaultOS", pod: podOf(imgLinux), outcome: OutcomeStamped,
			wantSelector:    map[string]string{v1.LabelOSStable: "linux"},
			wantTolerations: linuxTolerations,
			wantRecord:      wellknown.Record{Source: "default", OS: "linux", Tolerations: tolerationStrings(linuxTolerations)},
		},
		{
			name: "defaultOS any: nothing to write", pod: podOf(imgLinux), outcome: OutcomeSkipped,
			args: []func(*config.WindowsAwareArgs){func(a *config.WindowsAwareArgs) { a.DefaultOS = config.OSAny }},
		},
		{
			name: "the user's selector conflicts: untouched", outcome: OutcomeConflict,
			pod: with(podOf(img2019), func(p *v1.Pod) { p.Spec.NodeSelector = map[string]string{v1.LabelOSStable: "linux"} }),
		},
		{
			name: "the user's build selector conflicts: untouched", outcome: OutcomeConflict,
			pod: with(podOf(img2022), func(p *v1.Pod) { p.Spec.NodeSelector = map[string]string{v1.LabelWindowsBuild: build19} }),
		},
		{
			name: "images that no host runs together: untouched", pod: podOf(img2019, img2022), outcome: OutcomeConflict,
		},
		{
			name: "the OS selector is the user's: kept, the rest added", outcome: OutcomeStamped,
			pod:             with(podOf(img2019), func(p *v1.Pod) { p.Spec.NodeSelector = map[string]string{v1.LabelOSStable: "windows", "pool": "iis"} }),
			wantSelector:    map[string]string{v1.LabelOSStable: "windows", "pool": "iis"},
			wantAffinity:    requiredTerms([]v1.NodeSelectorRequirement{buildIs(build19)}),
			wantTolerations: winTolerations,
			wantRecord:      wellknown.Record{Source: "tag", Builds: []string{build19}, Tolerations: tolerationStrings(winTolerations)},
		},
		{
			name: "existing required terms without the build key: each gets it", outcome: OutcomeStamped,
			pod: with(podOf(img2019), func(p *v1.Pod) {
				p.Spec.Affinity = requiredTerms([]v1.NodeSelectorRequirement{zoneIs("a")}, []v1.NodeSelectorRequirement{zoneIs("b")})
			}),
			wantSelector:    map[string]string{v1.LabelOSStable: "windows"},
			wantAffinity:    requiredTerms([]v1.NodeSelectorRequirement{zoneIs("a"), buildIs(build19)}, []v1.NodeSelectorRequirement{zoneIs("b"), buildIs(build19)}),
			wantTolerations: winTolerations,
			wantRecord:      wellknown.Record{Source: "tag", OS: "windows", Builds: []string{build19}, Tolerations: tolerationStrings(winTolerations)},
		},
		{
			name: "a term that already names the build is left alone, the other gets it", outcome: OutcomeStamped,
			pod: with(podOf(img2022), func(p *v1.Pod) {
				p.Spec.Affinity = requiredTerms([]v1.NodeSelectorRequirement{buildIs(build25)}, []v1.NodeSelectorRequirement{zoneIs("b")})
			}),
			wantSelector:    map[string]string{v1.LabelOSStable: "windows"},
			wantAffinity:    staying(preferring(requiredTerms([]v1.NodeSelectorRequirement{buildIs(build25)}, []v1.NodeSelectorRequirement{zoneIs("b"), buildIs(build22, build23, build25)}), build22)),
			wantTolerations: winTolerations,
			wantRecord:      wellknown.Record{Source: "tag", OS: "windows", Builds: []string{build22, build23, build25}, Preferred: build22, Tolerations: tolerationStrings(winTolerations), AvoidsRetiring: true},
		},
		{
			name: "a term that names the build too widely is narrowed by a second expression", outcome: OutcomeStamped,
			pod: with(podOf(img2019), func(p *v1.Pod) {
				p.Spec.Affinity = requiredTerms([]v1.NodeSelectorRequirement{buildIs(build19, build22)})
			}),
			wantSelector:    map[string]string{v1.LabelOSStable: "windows"},
			wantAffinity:    requiredTerms([]v1.NodeSelectorRequirement{buildIs(build19, build22), buildIs(build19)}),
			wantTolerations: winTolerations,
			wantRecord:      wellknown.Record{Source: "tag", OS: "windows", Builds: []string{build19}, Tolerations: tolerationStrings(winTolerations)},
		},
		{
			name: "every term already narrow and a preference of the user's: no affinity written", outcome: OutcomeStamped,
			pod: with(podOf(img2022), func(p *v1.Pod) {
				p.Spec.Affinity = preferring(requiredTerms([]v1.NodeSelectorRequirement{buildIs(build22)}), build25)
			}),
			wantSelector:    map[string]string{v1.LabelOSStable: "windows"},
			wantAffinity:    preferring(requiredTerms([]v1.NodeSelectorRequirement{buildIs(build22)}), build25),
			wantTolerations: winTolerations,
			wantRecord:      wellknown.Record{Source: "tag", OS: "windows", Tolerations: tolerationStrings(winTolerations)},
		},
		{
			name: "an existing toleration covers the os key: only the other key is added", outcome: OutcomeStamped,
			pod: with(podOf(img2019), func(p *v1.Pod) {
				p.Spec.Tolerations = []v1.Toleration{{Key: "os", Operator: v1.TolerationOpExists}}
			}),
			wantSelector:    map[string]string{v1.LabelOSStable: "windows"},
			wantAffinity:    requiredTerms([]v1.NodeSelectorRequirement{buildIs(build19)}),
			wantTolerations: append([]v1.Toleration{{Key: "os", Operator: v1.TolerationOpExists}}, winTolerations[2:]...),
			wantRecord:      wellknown.Record{Source: "tag", OS: "windows", Builds: []string{build19}, Tolerations: tolerationStrings(winTolerations[2:])},
		},
		{
			name: "everything already there: nothing to add", outcome: OutcomeSkipped,
			pod: with(podOf(img2019), func(p *v1.Pod) {
				p.Spec.NodeSelector = map[string]string{v1.LabelOSStable: "windows"}
				p.Spec.Affinity = requiredTerms([]v1.NodeSelectorRequirement{buildIs(build19)})
				p.Spec.Tolerations = []v1.Toleration{{Operator: v1.TolerationOpExists}}
			}),
		},
		{
			name: "osTaints.tolerate off: no tolerations", outcome: OutcomeStamped, pod: podOf(img2019),
			args:         []func(*config.WindowsAwareArgs){func(a *config.WindowsAwareArgs) { a.OSTaints.Tolerate = false }},
			wantSelector: map[string]string{v1.LabelOSStable: "windows"},
			wantAffinity: requiredTerms([]v1.NodeSelectorRequirement{buildIs(build19)}),
			wantRecord:   wellknown.Record{Source: "tag", OS: "windows", Builds: []string{build19}},
		},
		{
			name: "opted out", outcome: OutcomeSkipped,
			pod: with(podOf(img2019), func(p *v1.Pod) { p.Labels = map[string]string{wellknown.LabelPublish: "false"} }),
		},
		{
			name: "a DaemonSet's pod", outcome: OutcomeSkipped,
			pod: with(podOf(img2019), func(p *v1.Pod) {
				p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "agent", UID: "u", Controller: ptr.To(true)}}
			}),
		},
		{
			name: "a mirror pod", outcome: OutcomeSkipped,
			pod: with(podOf(img2019), func(p *v1.Pod) { p.Annotations = map[string]string{v1.MirrorPodAnnotationKey: "abc"} }),
		},
		{
			name: "a pod that names its node", outcome: OutcomeSkipped,
			pod: with(podOf(img2019), func(p *v1.Pod) { p.Spec.NodeName = "win-1" }),
		},
		{
			name: "another scheduler's pod", outcome: OutcomeSkipped, pod: fixture.Pod("p", "default-scheduler", img2019),
		},
		{
			name: "registry resolution: a Windows image without a build is gated, its OS written", outcome: OutcomeGated,
			args:            []func(*config.WindowsAwareArgs){registry(config.ResolutionWindows)},
			pod:             podOf("mcr.microsoft.com/windows/servercore:latest"),
			wantSelector:    map[string]string{v1.LabelOSStable: "windows"},
			wantTolerations: winTolerations,
			wantGates:       []v1.PodSchedulingGate{{Name: wellknown.GatePlatform}},
			wantRecord:      wellknown.Record{Source: "tag", OS: "windows", Tolerations: tolerationStrings(winTolerations), GatedOn: "mcr.microsoft.com/windows/servercore:latest"},
		},
		{
			name: "registry resolution of undeclared pods: gated, and the default OS not written", outcome: OutcomeGated,
			args:       []func(*config.WindowsAwareArgs){registry(config.ResolutionUndeclared)},
			pod:        podOf("contoso.azurecr.io/web:1.4.2"),
			wantGates:  []v1.PodSchedulingGate{{Name: wellknown.GatePlatform}},
			wantRecord: wellknown.Record{Source: "default", GatedOn: "contoso.azurecr.io/web:1.4.2"},
		},
		{
			name: "registry resolution: a tag that names the build is not gated", outcome: OutcomeStamped,
			args:            []func(*config.WindowsAwareArgs){registry(config.ResolutionWindows)},
			pod:             podOf(img2019),
			wantSelector:    map[string]string{v1.LabelOSStable: "windows"},
			wantAffinity:    requiredTerms([]v1.NodeSelectorRequirement{buildIs(build19)}),
			wantTolerations: winTolerations,
			wantRecord:      wellknown.Record{Source: "tag", OS: "windows", Builds: []string{build19}, Tolerations: tolerationStrings(winTolerations)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPublisher(t, tt.args...)
			before := tt.pod.DeepCopy()
			pod := tt.pod.DeepCopy()
			rec, outcome := p.Publish(pod)
			if outcome != tt.outcome {
				t.Fatalf("outcome %q, want %q (record %s)", outcome, tt.outcome, rec.String())
			}
			if outcome != OutcomeStamped && outcome != OutcomeGated {
				if diff := cmp.Diff(before, pod); diff != "" {
					t.Fatalf("a %s pod was changed (-before +after):\n%s", outcome, diff)
				}
				return
			}
			want := before.DeepCopy()
			if tt.wantSelector != nil {
				want.Spec.NodeSelector = tt.wantSelector
			}
			if tt.wantAffinity != nil {
				want.Spec.Affinity = tt.wantAffinity
			}
			if tt.wantTolerations != nil {
				want.Spec.Tolerations = tt.wantTolerations
			}
			if tt.wantGates != nil {
				want.Spec.SchedulingGates = tt.wantGates
				want.Labels = map[string]string{wellknown.LabelGated: "true"}
			}
			if want.Annotations == nil {
				want.Annotations = map[string]string{}
			}
			want.Annotations[wellknown.AnnotationPublished] = tt.wantRecord.String()
			if diff := cmp.Diff(want, pod); diff != "" {
				t.Errorf("published pod (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantRecord, rec); diff != "" {
				t.Errorf("record (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPublishTwice: publishing a published pod adds nothing.
func TestPublishTwice(t *testing.T) {
	p := newPublisher(t)
	for _, img := range []string{img2019, img2022, img2025, imgLinux} {
		pod := podOf(img)
		if _, outcome := p.Publish(pod); outcome != OutcomeStamped {
			t.Fatalf("%s: first outcome %q", img, outcome)
		}
		again := pod.DeepCopy()
		if rec, outcome := p.Publish(again); outcome != OutcomeSkipped {
			t.Errorf("%s: publishing again: %q, record %s", img, outcome, rec.String())
		}
	}
}
