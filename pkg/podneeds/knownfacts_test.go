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

package podneeds_test

import (
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// The images of the known-facts tests: tags that name no build, whose
// platforms only a registry knows.
const (
	imgWinOnly = "contoso.azurecr.io/agent:3.1" // Windows 2019 and 2022
	imgLinOnly = "contoso.azurecr.io/tools:1"   // Linux amd64
	imgBoth    = "contoso.azurecr.io/golang:1"  // Linux and Windows 2022
	imgUnseen  = "contoso.azurecr.io/unseen:1"  // nothing known
)

// registryFacts is a resolver of a scope whose cache holds listings: it
// tells them as PlatformsOf for the pods it resolves, and records which
// images it was asked about.
type registryFacts struct {
	scope    string
	listings map[string]podneeds.Listing
	asked    []string
}

func (f *registryFacts) Resolves(declaredOS string) bool {
	switch f.scope {
	case config.ResolutionWindows:
		return declaredOS == windows.OSWindows
	case config.ResolutionUndeclared:
		return declaredOS == windows.OSWindows || declaredOS == ""
	}
	return false
}

func (f *registryFacts) PlatformsOf(_ *v1.Pod, ref string) (podneeds.Listing, bool, error) {
	f.asked = append(f.asked, ref)
	l, ok := f.listings[ref]
	return l, ok, nil
}

// knowingFacts are registryFacts that also tell what their cache holds of
// the images of the pods they do not resolve.
type knowingFacts struct {
	*registryFacts
	read []string
}

func (f *knowingFacts) KnownPlatformsOf(_ *v1.Pod, ref string) (podneeds.Listing, bool) {
	f.read = append(f.read, ref)
	l, ok := f.listings[ref]
	return l, ok
}

func listing(platforms ...windows.Platform) podneeds.Listing {
	return podneeds.Listing{Platforms: platforms, Summary: windows.Summarize(platforms)}
}

func winPlatform(build string) windows.Platform {
	b, ok := windows.ParseBuild(build)
	if !ok {
		panic(build)
	}
	return windows.Platform{OS: windows.OSWindows, Arch: "amd64", Version: windows.Version{Build: b}}
}

var linuxPlatform = windows.Platform{OS: windows.OSLinux, Arch: "amd64"}

func cachedListings() map[string]podneeds.Listing {
	return map[string]podneeds.Listing{
		imgWinOnly: listing(winPlatform("10.0.17763"), winPlatform("10.0.20348")),
		imgLinOnly: listing(linuxPlatform),
		imgBoth:    listing(linuxPlatform, winPlatform("10.0.20348")),
	}
}

// TestKnownFacts: what the resolver already knows of an image decides
// for the pods whose images it does not resolve: a pod that selects Linux
// with a Windows-only image is a conflict naming the image and its
// builds, a pod that declares no OS takes the one its known images give,
// and an image nothing is known of is decided by its tag, as before. The
// registry is never asked about such pods.
func TestKnownFacts(t *testing.T) {
	linux := func(p *v1.Pod) *v1.Pod { return withOS(p, v1.Linux) }
	selectsLinux := func(p *v1.Pod) *v1.Pod { return withNodeSelector(p, v1.LabelOSStable, "linux") }
	affinityLinux := func(p *v1.Pod) *v1.Pod { return withRequiredAffinity(p, v1.LabelOSStable, "linux") }
	winBuilds := []string{imgWinOnly, "10.0.17763", "10.0.20348"}
	windowsNodes := []string{"win2019", "win2022", "win2025", "win2019-kernel-only"}

	tests := []struct {
		name  string
		scope string
		pod   *v1.Pod
		// wantKind and wantIn: the conflict, its kind and what its message
		// names; wantKind "" wants none.
		wantKind podneeds.ConflictKind
		wantIn   []string
		// wantOS, wantSource and wantNodes: the decision, when no conflict.
		wantOS     string
		wantSource podneeds.Source
		wantNodes  []string
		// wantRead are the images whose known facts were read.
		wantRead []string
	}{
		{name: ".spec.os.name linux, Windows-only image known", scope: config.ResolutionWindows, pod: linux(pod(imgWinOnly)),
			wantKind: podneeds.ConflictOSVsImage, wantIn: append([]string{"needs a linux node", "has no linux platform"}, winBuilds...), wantRead: []string{imgWinOnly}},
		{name: ".spec.os.name linux under scope Undeclared", scope: config.ResolutionUndeclared, pod: linux(pod(imgLinux, imgWinOnly)),
			wantKind: podneeds.ConflictOSVsImage, wantIn: winBuilds, wantRead: []string{imgLinux, imgWinOnly}},
		{name: "kubernetes.io/os selector linux, Windows-only image known", scope: config.ResolutionWindows, pod: selectsLinux(pod(imgWinOnly)),
			wantKind: podneeds.ConflictSelectorOS, wantIn: append([]string{v1.LabelOSStable + " in [linux]"}, winBuilds...), wantRead: []string{imgWinOnly}},
		{name: "kubernetes.io/os affinity linux, Windows-only image known", scope: config.ResolutionWindows, pod: affinityLinux(pod(imgWinOnly)),
			wantKind: podneeds.ConflictSelectorOS, wantIn: append([]string{v1.LabelOSStable + " in [linux]"}, winBuilds...), wantRead: []string{imgWinOnly}},
		{name: "Windows-only image in an init container", scope: config.ResolutionWindows, pod: linux(withInit(pod(imgLinOnly), imgWinOnly)),
			wantKind: podneeds.ConflictOSVsImage, wantIn: winBuilds, wantRead: []string{imgWinOnly, imgLinOnly}},

		{name: ".spec.os.name linux, image of both OSes known", scope: config.ResolutionWindows, pod: linux(pod(imgBoth)),
			wantOS: windows.OSLinux, wantSource: podneeds.SourceSpec, wantNodes: linuxNodes, wantRead: []string{imgBoth}},
		{name: ".spec.os.name linux, nothing known", scope: config.ResolutionWindows, pod: linux(pod(imgUnseen)),
			wantOS: windows.OSLinux, wantSource: podneeds.SourceSpec, wantNodes: linuxNodes, wantRead: []string{imgUnseen}},
		{name: ".spec.os.name linux, a Windows tag naming no build yields, nothing known", scope: config.ResolutionWindows, pod: linux(pod(imgNano)),
			wantOS: windows.OSLinux, wantSource: podneeds.SourceSpec, wantNodes: linuxNodes, wantRead: []string{imgNano}},
		{name: "a tag that names a build is never read", scope: config.ResolutionWindows, pod: linux(pod(img2019)),
			wantKind: podneeds.ConflictOSVsImage, wantIn: []string{img2019, "10.0.17763"}},

		// Undeclared pods under scope Windows: known facts give them an
		// OS as resolution would.
		{name: "undeclared, Windows-only image known: a Windows pod of its builds", scope: config.ResolutionWindows, pod: pod(imgWinOnly),
			wantOS: windows.OSWindows, wantSource: podneeds.SourceRegistry, wantNodes: windowsNodes, wantRead: []string{imgWinOnly}},
		{name: "undeclared, Linux-only image known: a Linux pod by its registry", scope: config.ResolutionWindows, pod: pod(imgLinOnly),
			wantOS: windows.OSLinux, wantSource: podneeds.SourceRegistry, wantNodes: linuxNodes, wantRead: []string{imgLinOnly}},
		{name: "undeclared, image of both OSes known: defaultOS", scope: config.ResolutionWindows, pod: pod(imgBoth),
			wantOS: windows.OSLinux, wantSource: podneeds.SourceDefault, wantNodes: linuxNodes, wantRead: []string{imgBoth}},
		{name: "undeclared, nothing known: defaultOS", scope: config.ResolutionWindows, pod: pod(imgUnseen),
			wantOS: windows.OSLinux, wantSource: podneeds.SourceDefault, wantNodes: linuxNodes, wantRead: []string{imgUnseen}},
		{name: "undeclared, Windows-only image known beside a Linux-only one", scope: config.ResolutionWindows, pod: pod(imgLinOnly, imgWinOnly),
			wantKind: podneeds.ConflictOSVsImage, wantIn: []string{"needs a windows node", imgLinOnly, "has no windows platform"}, wantRead: []string{imgLinOnly, imgWinOnly}},

		// A pod in scope is resolved: its known facts are not read.
		{name: "in scope: resolved, not read", scope: config.ResolutionWindows, pod: withOS(pod(imgWinOnly), v1.Windows),
			wantOS: windows.OSWindows, wantSource: podneeds.SourceSpec, wantNodes: windowsNodes},
	}
	nodes := testNodes()
	dr := decider(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			facts := &knowingFacts{registryFacts: &registryFacts{scope: tt.scope, listings: cachedListings()}}
			resolved := facts.Resolves(dr.DeclaredOS(tt.pod))
			d := dr.Decide(tt.pod, facts)
			if got := d.ConflictKind(); got != tt.wantKind {
				t.Fatalf("ConflictKind() = %q, want %q (conflict %q)", got, tt.wantKind, d.Conflict())
			}
			for _, s := range tt.wantIn {
				if !strings.Contains(d.Conflict(), s) {
					t.Errorf("conflict %q does not name %q", d.Conflict(), s)
				}
			}
			if !slices.Equal(facts.read, tt.wantRead) {
				t.Errorf("known facts read of %v, want %v", facts.read, tt.wantRead)
			}
			if !resolved && len(facts.asked) > 0 {
				t.Errorf("the registry was asked about %v for a pod out of scope", facts.asked)
			}
			if tt.wantKind != "" {
				return
			}
			if d.OS() != tt.wantOS || d.OSSource() != tt.wantSource {
				t.Errorf("OS %q from %q, want %q from %q", d.OS(), d.OSSource(), tt.wantOS, tt.wantSource)
			}
			got, want := runsOn(d, tt.pod, nodes), slices.Clone(tt.wantNodes)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("runs on %v, want %v", got, want)
			}
		})
	}
}

// TestKnownFactsOptional: Facts that know nothing beyond what they
// resolve (no KnownPlatformsOf) leave the pods they do not resolve to
// their tags.
func TestKnownFactsOptional(t *testing.T) {
	facts := &registryFacts{scope: config.ResolutionWindows, listings: cachedListings()}
	d := decider(t).Decide(withOS(pod(imgWinOnly), v1.Linux), facts)
	if d.Conflict() != "" || d.OS() != windows.OSLinux {
		t.Errorf("decision: OS %q, conflict %q; want linux, none", d.OS(), d.Conflict())
	}
	if len(facts.asked) > 0 {
		t.Errorf("the registry was asked about %v for a pod out of scope", facts.asked)
	}
}

// TestSelectorConflictNamesTheImage: a selector that pins another OS than
// the pod's images need names the image the OS came from, by its tag or
// its registry's listing; one against .spec.os.name names none.
func TestSelectorConflictNamesTheImage(t *testing.T) {
	facts := &registryFacts{scope: config.ResolutionUndeclared, listings: cachedListings()}
	tests := []struct {
		name   string
		pod    *v1.Pod
		wantIn []string
		// wantNot must not be in the message.
		wantNot string
	}{
		{name: "Windows tag", pod: withNodeSelector(pod(img2019), v1.LabelOSStable, "linux"),
			wantIn: []string{"needs a windows node", `image "` + img2019 + `" is a Windows image (build 10.0.17763)`}},
		{name: "Windows-only registry listing", pod: withNodeSelector(pod(imgWinOnly), v1.LabelOSStable, "linux"),
			wantIn: []string{"needs a windows node", `image "` + imgWinOnly + `" comes in windows/amd64 10.0.17763, windows/amd64 10.0.20348`}},
		{name: "Linux-only registry listing", pod: withNodeSelector(pod(imgLinOnly), v1.LabelOSStable, "windows"),
			wantIn: []string{"needs a linux node", `image "` + imgLinOnly + `" comes in linux/amd64`}},
		{name: ".spec.os.name", pod: withNodeSelector(withOS(pod(imgLinux), v1.Windows), v1.LabelOSStable, "linux"),
			wantIn: []string{"needs a windows node"}, wantNot: "image"},
	}
	dr := decider(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := dr.Decide(tt.pod, facts)
			if d.ConflictKind() != podneeds.ConflictSelectorOS {
				t.Fatalf("ConflictKind() = %q, want %q (conflict %q)", d.ConflictKind(), podneeds.ConflictSelectorOS, d.Conflict())
			}
			for _, s := range tt.wantIn {
				if !strings.Contains(d.Conflict(), s) {
					t.Errorf("conflict %q does not say %q", d.Conflict(), s)
				}
			}
			if tt.wantNot != "" && strings.Contains(d.Conflict(), tt.wantNot) {
				t.Errorf("conflict %q says %q", d.Conflict(), tt.wantNot)
			}
		})
	}
}
