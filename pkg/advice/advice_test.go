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

package advice_test

import (
	"testing"

	"github.com/windows-aware/windows-aware/pkg/advice"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// catalog is the built-in releases and one an administrator added
// (extraReleases), spelled in capitals as an administrator may.
func catalog(t *testing.T) *windows.Catalog {
	t.Helper()
	build, ok := windows.ParseBuild("10.0.30000")
	if !ok {
		t.Fatal("10.0.30000 does not parse")
	}
	c, err := windows.NewCatalog([]windows.Release{{Token: "LTSC2031", Build: build}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestConflictFix: every kind of conflict that a pod can fix has its
// words; the others ("other", a registry that did not answer) have none.
func TestConflictFix(t *testing.T) {
	const oneRelease = "use images of one Windows release, or multi-platform images that list a build of each release"
	tests := []struct {
		kind string
		want string
	}{
		{string(podneeds.ConflictOSVsImage), "make the pod's OS (.spec.os.name, or its kubernetes.io/os selector) and its images agree: run images built for that OS, or remove the OS the pod names"},
		{string(podneeds.ConflictBuildsNoHost), oneRelease},
		{string(podneeds.ConflictTagTwoBuilds), oneRelease},
		{string(podneeds.ConflictSelectorOS), "remove the pod's own selector or affinity on kubernetes.io/os: the profile places the pod by OS without one"},
		{string(podneeds.ConflictSelectorBuild), "remove the pod's own selector or affinity on node.kubernetes.io/windows-build: the profile picks the build from the images"},
		{advice.ConflictKindRuntimeClass, "remove the pod's own nodeSelector entries that its RuntimeClass sets differently, or use another RuntimeClass"},
		{string(podneeds.ConflictOther), ""},
		{"", ""},
		{"no_such_kind", ""},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			if got := advice.ConflictFix(tt.kind); got != tt.want {
				t.Errorf("ConflictFix(%q) = %q, want %q", tt.kind, got, tt.want)
			}
		})
	}
	for _, kind := range podneeds.ConflictKinds {
		if kind != podneeds.ConflictOther && advice.ConflictFix(string(kind)) == "" {
			t.Errorf("conflict kind %q has no fix", kind)
		}
	}
}

// TestMissingPool: the pool a cluster lacks, named by its release, and
// the retag that the cluster's own Windows builds would run.
func TestMissingPool(t *testing.T) {
	tests := []struct {
		name          string
		need          advice.Need
		clusterBuilds []string
		want          string
	}{
		{name: "any OS", need: advice.Need{},
			want: "no node runs the pod's images (see the reasons above): add a pool of their architecture"},
		{name: "linux", need: advice.Need{OS: "linux"},
			want: "no linux node runs the pod: add a linux pool of the images' architecture"},
		{name: "windows, any build", need: advice.Need{OS: "windows", AnyBuild: true, HostBuilds: []string{"10.0.17763"}},
			want: "no Windows node runs the pod: add a Windows pool"},
		{name: "windows, no build known", need: advice.Need{OS: "windows"},
			want: "no Windows node runs the pod: add a Windows pool"},
		{name: "one build", need: advice.Need{OS: "windows", HostBuilds: []string{"10.0.17763"}},
			want: "no node runs 10.0.17763 (ltsc2019): add a Windows Server 2019 pool"},
		{name: "several builds: the oldest is asked for", need: advice.Need{OS: "windows", HostBuilds: []string{"10.0.20348", "10.0.25398", "10.0.26100"}},
			want: "no node runs 10.0.20348 (ltsc2022), 10.0.25398 (23H2), 10.0.26100 (ltsc2025): add a Windows Server 2022 pool"},
		{name: "several builds: the one Score prefers is asked for",
			need: advice.Need{OS: "windows", HostBuilds: []string{"10.0.20348", "10.0.26100"}, PreferredBuild: "10.0.26100"},
			want: "no node runs 10.0.20348 (ltsc2022), 10.0.26100 (ltsc2025): add a Windows Server 2025 pool"},
		{name: "a build of a release that is not an LTSC", need: advice.Need{OS: "windows", HostBuilds: []string{"10.0.19042"}},
			want: "no node runs 10.0.19042 (20H2): add a Windows 20H2 (10.0.19042) pool"},
		{name: "an administrator's release", need: advice.Need{OS: "windows", HostBuilds: []string{"10.0.30000"}},
			want: "no node runs 10.0.30000 (LTSC2031): add a Windows Server 2031 pool"},
		{name: "a build no release names", need: advice.Need{OS: "windows", HostBuilds: []string{"10.0.99999"}},
			want: "no node runs 10.0.99999: add a Windows 10.0.99999 pool"},
		{name: "a build from a tag: retag for the cluster's builds, each named once",
			need:          advice.Need{OS: "windows", HostBuilds: []string{"10.0.17763"}, FromTag: true},
			clusterBuilds: []string{"10.0.20348", "10.0.99999", "10.0.20348", "10.0.19042"},
			want:          "no node runs 10.0.17763 (ltsc2019): add a Windows Server 2019 pool, or retag the image for ltsc2022 or 20H2"},
		{name: "a build from a registry: no retag", need: advice.Need{OS: "windows", HostBuilds: []string{"10.0.17763"}},
			clusterBuilds: []string{"10.0.20348"},
			want:          "no node runs 10.0.17763 (ltsc2019): add a Windows Server 2019 pool"},
		{name: "a build from a tag, no cluster build a release names: no retag",
			need: advice.Need{OS: "windows", HostBuilds: []string{"10.0.17763"}, FromTag: true}, clusterBuilds: []string{"10.0.99999"},
			want: "no node runs 10.0.17763 (ltsc2019): add a Windows Server 2019 pool"},
	}
	c := catalog(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := advice.MissingPool(tt.need, c, tt.clusterBuilds); got != tt.want {
				t.Errorf("MissingPool(%+v, %q)\n got %q\nwant %q", tt.need, tt.clusterBuilds, got, tt.want)
			}
		})
	}
}

// TestFixes: the fixes of a pod's own selectors, of taints and of a
// pool's build label, as the webhook's warnings and explain print them.
func TestFixes(t *testing.T) {
	tests := []struct {
		name, got, want string
	}{
		{"AffinityFix", advice.AffinityFix("pool win22"),
			"the pod's own nodeSelector or required node affinity excludes every node that runs it (pool win22): remove it or correct it; the profile places the pod by OS and build without one"},
		{"TaintFix", advice.TaintFix("pool win22, pool win25", []string{"os=windows:NoSchedule", "gpu:NoExecute"}),
			"every node that runs it (pool win22, pool win25) has a taint the pod does not tolerate (os=windows:NoSchedule, gpu:NoExecute): add a toleration for it to the pod"},
		{"MalformedBuildFix", advice.MalformedBuildFix("pool win", "2022"),
			`pool win: the label node.kubernetes.io/windows-build="2022" is not a Windows build: correct it to the build the nodes run (like 10.0.20348)`},
		{"MalformedBuildFix quotes what it prints", advice.MalformedBuildFix("pool win", "10.0\n1"),
			`pool win: the label node.kubernetes.io/windows-build="10.0\n1" is not a Windows build: correct it to the build the nodes run (like 10.0.20348)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got  %q\nwant %q", tt.got, tt.want)
			}
		})
	}
}

// TestPoolName: a pool by its label, else the unpooled nodes by platform.
func TestPoolName(t *testing.T) {
	tests := []struct {
		pool, os, build, want string
	}{
		{"win22", "windows", "10.0.20348", "pool win22"},
		{"", "windows", "10.0.20348", "the unpooled windows 10.0.20348 nodes"},
		{"", "linux", "", "the unpooled linux nodes"},
	}
	for _, tt := range tests {
		if got := advice.PoolName(tt.pool, tt.os, tt.build); got != tt.want {
			t.Errorf("PoolName(%q, %q, %q) = %q, want %q", tt.pool, tt.os, tt.build, got, tt.want)
		}
	}
}

// TestReleaseTitle: a build by its release, as people name it: Windows
// Server and the year of an LTSC release (windows.Catalog.ReleaseName
// prefers an LTSC token), else its token and the build.
func TestReleaseTitle(t *testing.T) {
	c := catalog(t)
	tests := []struct {
		build, title string
	}{
		{build: "10.0.14393", title: "Windows Server 2016"},
		{build: "10.0.17763", title: "Windows Server 2019"}, // 1809 is listed first
		{build: "10.0.16299", title: "Windows 1709 (10.0.16299)"},
		{build: "10.0.19042", title: "Windows 20H2 (10.0.19042)"}, // and 2009
		{build: "10.0.25398", title: "Windows 23H2 (10.0.25398)"}, // a host-only release
		{build: "10.0.26100", title: "Windows Server 2025"},
		{build: "10.0.30000", title: "Windows Server 2031"},
		{build: "10.0.99999", title: "Windows 10.0.99999"},
	}
	for _, tt := range tests {
		if got := advice.ReleaseTitle(c, tt.build); got != tt.title {
			t.Errorf("ReleaseTitle(%q) = %q, want %q", tt.build, got, tt.title)
		}
	}
}
