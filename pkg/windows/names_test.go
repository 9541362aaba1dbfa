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

import "testing"

// namesCatalog is the built-in releases and one an administrator added
// (extraReleases), spelled in capitals as an administrator may.
func namesCatalog(t *testing.T) *Catalog {
	t.Helper()
	c, err := NewCatalog([]Release{{Token: "LTSC2031", Build: build10(30000)}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestReleaseName: a build by its release token, an LTSC one first, else
// the first that names it.
func TestReleaseName(t *testing.T) {
	c := namesCatalog(t)
	tests := []struct {
		build, name string
	}{
		{build: "10.0.14393", name: "ltsc2016"}, // 1607 and sac2016 too
		{build: "10.0.17763", name: "ltsc2019"}, // 1809 is listed first
		{build: "10.0.16299", name: "1709"},
		{build: "10.0.19042", name: "20H2"},     // and 2009
		{build: "10.0.25398", name: "23H2"},     // a host-only release
		{build: "10.0.20348", name: "ltsc2022"}, // not the server-only 21H2
		{build: "10.0.26100", name: "ltsc2025"},
		{build: "10.0.30000", name: "LTSC2031"},
		{build: "10.0.99999", name: ""},
		{build: "10.0.017763", name: ""}, // not as the label spells it
	}
	for _, tt := range tests {
		if got := c.ReleaseName(tt.build); got != tt.name {
			t.Errorf("ReleaseName(%q) = %q, want %q", tt.build, got, tt.name)
		}
	}
	if got := DefaultCatalog().ReleaseName("10.0.30000"); got != "" {
		t.Errorf("DefaultCatalog().ReleaseName(10.0.30000) = %q, want none: the release is another catalog's", got)
	}
	if got := (*Catalog)(nil).ReleaseName("10.0.17763"); got != "" {
		t.Errorf("ReleaseName of no catalog = %q, want none", got)
	}
}

// TestReleaseNameOfExtraRelease: an extra release that re-points a token
// or adds one for a known build names it only where no earlier release
// does, and wins over a non-LTSC name when it is an LTSC one.
func TestReleaseNameOfExtraRelease(t *testing.T) {
	c, err := NewCatalog([]Release{{Token: "ltsc2015", Build: build10(16299)}, {Token: "2404", Build: build10(17763)}})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.ReleaseName("10.0.16299"); got != "ltsc2015" {
		t.Errorf("ReleaseName(10.0.16299) = %q, want the extra LTSC token over 1709", got)
	}
	if got := c.ReleaseName("10.0.17763"); got != "ltsc2019" {
		t.Errorf("ReleaseName(10.0.17763) = %q, want the known LTSC token", got)
	}
}

// TestBuildNames: builds in a list, each with its release name where it
// has one.
func TestBuildNames(t *testing.T) {
	c := namesCatalog(t)
	for _, tt := range []struct {
		builds []string
		want   string
	}{
		{nil, ""},
		{[]string{"10.0.17763"}, "10.0.17763 (ltsc2019)"},
		{[]string{"10.0.17763", "10.0.99999", "10.0.20348"}, "10.0.17763 (ltsc2019), 10.0.99999, 10.0.20348 (ltsc2022)"},
		{[]string{"10.0.30000"}, "10.0.30000 (LTSC2031)"},
	} {
		if got := c.BuildNames(tt.builds); got != tt.want {
			t.Errorf("BuildNames(%q) = %q, want %q", tt.builds, got, tt.want)
		}
	}
}

// TestLTSCYear: the year of an LTSC token, in either case.
func TestLTSCYear(t *testing.T) {
	for _, tt := range []struct {
		token, year string
		ok          bool
	}{
		{"ltsc2022", "2022", true},
		{"LTSC2031", "2031", true},
		{"ltsc", "", true},
		{"1809", "", false},
		{"23H2", "", false},
		{"", "", false},
	} {
		if year, ok := LTSCYear(tt.token); year != tt.year || ok != tt.ok {
			t.Errorf("LTSCYear(%q) = %q, %v; want %q, %v", tt.token, year, ok, tt.year, tt.ok)
		}
	}
}
