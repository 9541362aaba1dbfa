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
	"strconv"
	"strings"
	"testing"
)

// FuzzImageOf feeds arbitrary references to the tag parser: it must never
// panic, and what it returns must hold together.
func FuzzImageOf(f *testing.F) {
	for _, seed := range []string{
		"mcr.microsoft.com/windows/servercore:ltsc2019",
		"mcr.microsoft.com/windows/servercore:10.0.17763.437-amd64",
		"mcr.microsoft.com/dotnet/framework/aspnet:4.8.1-20260714-windowsservercore-ltsc2025",
		"mcr.microsoft.com/dotnet/aspnet:8.0-nanoserver-1809",
		"microsoft/windowsservercore:1709",
		"ghcr.io/acme/api:2004",
		"ghcr.io/acme/ltsc2019-tools:v1",
		"nginx@sha256:" + sha,
		"mcr.microsoft.com/windows/servercore:1809-ltsc2022",
		"mcr.microsoft.com/windows/servercore:20H2-KB5034127",
		"", ":", "a:-", "a:--", "a:10.0.", "a:10.0.4294967296.1",
	} {
		f.Add(seed)
	}
	c := DefaultCatalog()
	f.Fuzz(func(t *testing.T, ref string) {
		img, err := c.ImageOf(ref)
		if err != nil {
			if img != (Image{}) {
				t.Fatalf("ImageOf(%q) returned %+v with error %v", ref, img, err)
			}
			return
		}
		if !img.Version.IsZero() && !img.Windows {
			t.Fatalf("ImageOf(%q) = %+v: a build without Windows", ref, img)
		}
		if img.Version.HasRevision && !strings.Contains(ref, img.Version.Build.String()+".") {
			t.Fatalf("ImageOf(%q) = %+v: a revision the tag does not spell", ref, img)
		}
		if !img.Version.IsZero() && !c.builds[img.Version.Build] {
			t.Fatalf("ImageOf(%q) = %+v: a build no release has", ref, img)
		}
	})
}

// FuzzParseKernelVersion: node labels and kernel versions come from the
// cluster; no value may panic, and a parse must round-trip.
func FuzzParseKernelVersion(f *testing.F) {
	for _, seed := range []string{"10.0.17763.4131", "10.0.20348", "banana", "6.8.0-45-generic", "1.2.3.4.5", "...", "99999999999.0.0"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if b, ok := ParseBuild(s); ok {
			if rb, rok := ParseBuild(b.String()); !rok || rb != b {
				t.Fatalf("ParseBuild(%q) = %v does not round-trip", s, b)
			}
			if strings.Count(s, ".") != 2 {
				t.Fatalf("ParseBuild(%q) = %v: not three parts", s, b)
			}
		}
		if v, ok := ParseKernelVersion(s); ok {
			if rb, rok := ParseBuild(v.Build.String()); !rok || rb != v.Build {
				t.Fatalf("ParseKernelVersion(%q) = %+v: build does not round-trip", s, v)
			}
		}
	})
}

// FuzzParseOSVersion: os.version comes from any registry; no value may
// panic, and what parses must be a real build that round-trips.
func FuzzParseOSVersion(f *testing.F) {
	for _, seed := range []string{"10.0.20348.2227", "10.0.17763", "0.0.0", "10.0.26100.1.1", "", "10.0.x", "4294967295.0.1.4294967295"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := ParseOSVersion(s)
		if !ok {
			if v != (Version{}) {
				t.Fatalf("ParseOSVersion(%q) = %+v with ok false", s, v)
			}
			return
		}
		if v.IsZero() {
			t.Fatalf("ParseOSVersion(%q) = zero Version, which reads as no os.version", s)
		}
		want := v.Build.String()
		if v.HasRevision {
			want += "." + strconv.FormatUint(uint64(v.Revision), 10)
		}
		if rv, rok := ParseOSVersion(want); !rok || rv != v {
			t.Fatalf("ParseOSVersion(%q) = %+v does not round-trip through %q", s, v, want)
		}
	})
}
