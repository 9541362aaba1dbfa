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
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/imagefacts"
	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
)

// knownFactsPlugin is a plugin under scope Windows whose resolver has
// resolved a Windows-only image, agent:3.1 (2019 and 2022 entries), for a
// Windows pod; unseen:1, Windows-only too, was pushed but never resolved.
func knownFactsPlugin(t *testing.T) (rp *resolutionPlugin, s *registrytest.Server, img, unseen string) {
	t.Helper()
	s = registrytest.New(t, registrytest.WithTLS())
	s.Push(t, "agent:3.1", registrytest.Index(t, registrytest.OCI, windowsEntry(osv2019), windowsEntry(osv2022)))
	s.Push(t, "unseen:1", registrytest.WindowsImage(t, osv2022))
	img, unseen = s.Ref("agent:3.1"), s.Ref("unseen:1")
	rp = newResolutionFramework(t, s.ResolvingArgs(config.ResolutionWindows, config.OnFailureTagRules, 10*time.Second), testNodes())
	win := withOS(pod(img), v1.Windows)
	ctx := context.Background()
	if rp.pl.PreEnqueue(ctx, win).IsSuccess() {
		t.Fatal("PreEnqueue passed a Windows pod whose image is unknown")
	}
	rp.activated.await(t, podKey(win), 5*time.Second)
	if got, status := feasibleNames(t, rp, win, testNodes()); status != nil || !slices.Equal(got, []string{"win2019", "win2019-kernel-only", "win2022", "win2025"}) {
		t.Fatalf("the Windows pod: feasible %v, PreFilter %v", got, status)
	}
	return rp, s, img, unseen
}

// TestPreFilterReadsKnownFacts: a pod the resolver does not resolve (it
// selects Linux; scope Windows) is judged by what the cache already knows
// of its images: one that selects Linux with a Windows-only image is
// rejected at PreFilter, naming the image and its builds, and so says the
// queueing hints' quiet decision. Such pods are never held, never asked
// about, and get no Event; one whose image nothing knows keeps its tag's
// placement.
func TestPreFilterReadsKnownFacts(t *testing.T) {
	rp, s, img, unseen := knownFactsPlugin(t)
	rp.recorded()
	asked := s.Total()
	ctx := context.Background()

	selectsLinux := pod(img).Obj()
	selectsLinux.Spec.NodeSelector = map[string]string{v1.LabelOSStable: "linux"}
	tests := []struct {
		name string
		pod  *v1.Pod
		// wantConflict are what PreFilter's rejection names; nil wants the
		// pod feasible on wantFeasible.
		wantConflict []string
		wantKind     podneeds.ConflictKind
		wantFeasible []string
	}{
		{name: ".spec.os.name linux", pod: withOS(pod(img), v1.Linux),
			wantConflict: []string{img, "has no linux platform", "10.0.17763", "10.0.20348"}, wantKind: podneeds.ConflictOSVsImage},
		{name: "kubernetes.io/os selector linux", pod: selectsLinux,
			wantConflict: []string{img, v1.LabelOSStable + " in [linux]", "10.0.17763", "10.0.20348"}, wantKind: podneeds.ConflictSelectorOS},
		{name: "undeclared: a Windows pod of the image's builds", pod: pod(img).Obj(),
			wantFeasible: []string{"win2019", "win2019-kernel-only", "win2022", "win2025"}},
		{name: "nothing known: the spec decides", pod: withOS(pod(unseen), v1.Linux), wantFeasible: linuxNodes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if st := rp.pl.PreEnqueue(ctx, tt.pod); !st.IsSuccess() {
				t.Fatalf("PreEnqueue held a pod out of scope: %v", st)
			}
			got, status := feasibleNames(t, rp, tt.pod, testNodes())
			_, quiet := rp.pl.requirementsQuiet(tt.pod)
			if tt.wantConflict == nil {
				if status != nil || quiet != nil {
					t.Fatalf("PreFilter = %v, quiet decision %v; want no conflict", status, quiet)
				}
				if !slices.Equal(got, tt.wantFeasible) {
					t.Errorf("feasible nodes = %v, want %v", got, tt.wantFeasible)
				}
				return
			}
			if status == nil || status.Code() != fwk.UnschedulableAndUnresolvable {
				t.Fatalf("PreFilter = %v, want UnschedulableAndUnresolvable", status)
			}
			for _, want := range tt.wantConflict {
				if !strings.Contains(status.Message(), want) {
					t.Errorf("PreFilter %q does not name %q", status.Message(), want)
				}
			}
			var c *podneeds.Conflict
			if quiet == nil || quiet.Error() != status.Message() {
				t.Errorf("quiet decision %v, want the same conflict as PreFilter", quiet)
			} else if c = quiet.(*podneeds.Conflict); c.Kind != tt.wantKind {
				t.Errorf("conflict kind %q, want %q", c.Kind, tt.wantKind)
			}
		})
	}
	if n := s.Total() - asked; n != 0 {
		t.Errorf("the registry was asked %d time(s) for pods out of scope", n)
	}
	if _, known := rp.pl.resolution.facts.Resolver().Lookup(unseen, imagefacts.PullSecretsOf(selectsLinux)); known {
		t.Errorf("%s was queued for resolution by a pod out of scope", unseen)
	}
	if evs := rp.recorded(); len(evs) > 0 {
		t.Errorf("events = %v, want none for pods out of scope", evs)
	}
}

// TestKnownFactsAllocations: reading known facts adds no allocation to
// the decision of a pod out of scope whose untagged images the cache does
// not know, the common case of Linux pods.
func TestKnownFactsAllocations(t *testing.T) {
	rp, _, _, unseen := knownFactsPlugin(t)
	pl := rp.pl
	facts := pl.facts(false)
	for _, p := range []*v1.Pod{withOS(pod(unseen, "nginx:1.27"), v1.Linux), pod("nginx:1.27", "busybox").Obj()} {
		with := testing.AllocsPerRun(200, func() { pl.decider.Decide(p, facts) })
		without := testing.AllocsPerRun(200, func() { pl.decider.Decide(p, nil) })
		if with > without {
			t.Errorf("pod of %v: Decide allocates %v times with known facts, %v without", p.Spec.Containers[0].Image, with, without)
		}
	}
}
