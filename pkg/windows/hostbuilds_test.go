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

package windows

import (
	"slices"
	"testing"
)

func TestHostBuilds(t *testing.T) {
	win := func(build uint32) []Platform {
		return []Platform{{OS: OSWindows, Version: Version{Build: build10(build)}}}
	}
	tests := []struct {
		name      string
		mode      Mode
		extra     []Release
		images    [][]Platform
		wantBuild []string
		wantEvery bool
	}{
		{name: "ltsc2019 runs on its own build only", mode: ModeContainerd, images: [][]Platform{win(17763)}, wantBuild: []string{"10.0.17763"}},
		// A 23H2 host (25398) has no images of its own and runs ltsc2022's.
		{name: "ltsc2022 runs on 2022, 23H2 and 2025 hosts", mode: ModeContainerd, images: [][]Platform{win(20348)}, wantBuild: []string{"10.0.20348", "10.0.25398", "10.0.26100"}},
		{name: "exact mode: ltsc2022 on 2022 only", mode: ModeExact, images: [][]Platform{win(20348)}, wantBuild: []string{"10.0.20348"}},
		{name: "ltsc2022 and ltsc2025 images together: 2025 only", mode: ModeContainerd, images: [][]Platform{win(20348), win(26100)}, wantBuild: []string{"10.0.26100"}},
		{name: "an Insider build outside the table is a candidate", mode: ModeContainerd, images: [][]Platform{win(20344)}, wantBuild: []string{"10.0.20344"}},
		{name: "an extra release is a candidate", mode: ModeContainerd, extra: []Release{{Token: "ltsc2028", Build: build10(30000)}},
			images: [][]Platform{win(26100)}, wantBuild: []string{"10.0.26100", "10.0.30000"}},
		{name: "a manifest list: some entry runs", mode: ModeContainerd, images: [][]Platform{{
			{OS: OSLinux, Arch: "amd64"},
			{OS: OSWindows, Arch: "amd64", Version: Version{Build: build10(17763)}},
			{OS: OSWindows, Arch: "amd64", Version: Version{Build: build10(20348)}},
		}}, wantBuild: []string{"10.0.17763", "10.0.20348", "10.0.25398", "10.0.26100"}},
		{name: "no build constraint: every build", mode: ModeContainerd, images: nil, wantEvery: true,
			wantBuild: []string{"10.0.14393", "10.0.16299", "10.0.17134", "10.0.17763", "10.0.18362", "10.0.18363", "10.0.19041", "10.0.19042", "10.0.20348", "10.0.25398", "10.0.26100"}},
		{name: "ltsc2025 runs on 2025 hosts, not 23H2", mode: ModeContainerd, images: [][]Platform{win(26100)}, wantBuild: []string{"10.0.26100"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewCatalog(tt.extra)
			if err != nil {
				t.Fatal(err)
			}
			builds, every := tt.mode.HostBuilds(&Need{OS: OSWindows, Images: tt.images}, c)
			var got []string
			for _, b := range builds {
				got = append(got, b.String())
			}
			if !slices.Equal(got, tt.wantBuild) || every != tt.wantEvery {
				t.Errorf("HostBuilds = %v, every %v; want %v, every %v", got, every, tt.wantBuild, tt.wantEvery)
			}
		})
	}
}

func TestCatalogBuildsOldestFirst(t *testing.T) {
	builds := DefaultCatalog().Builds()
	if !slices.IsSortedFunc(builds, Build.Compare) || len(builds) == 0 {
		t.Fatalf("Builds() = %v, want the release table's builds oldest first", builds)
	}
	if builds[0] != build10(14393) || builds[len(builds)-1] != build10(26100) {
		t.Errorf("Builds() = %v, want 10.0.14393 first and 10.0.26100 last", builds)
	}
}

// TestCatalogHosts: every build of the tag tables is a host build, and so
// are the host-only releases', which no tag names.
func TestCatalogHosts(t *testing.T) {
	c := DefaultCatalog()
	hosts := c.Hosts()
	if !slices.IsSortedFunc(hosts, Build.Compare) {
		t.Fatalf("Hosts() = %v, want oldest first", hosts)
	}
	for _, b := range c.Builds() {
		if !slices.Contains(hosts, b) {
			t.Errorf("Hosts() = %v lacks the table's build %v", hosts, b)
		}
	}
	if !slices.Contains(hosts, build10(25398)) || slices.Contains(c.Builds(), build10(25398)) {
		t.Errorf("Hosts() = %v, Builds() = %v: want 23H2's 10.0.25398 a host build and no tag's", hosts, c.Builds())
	}
}
