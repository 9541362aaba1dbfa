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
	"unicode"

	"github.com/distribution/reference"
)

// FuzzImageOf feeds arbitrary references to the tag parser: it must never
// panic, and what it returns must hold together. The seeds are every
// reference of the table tests plus edge cases of the grammar.
// maxErrorLength is the longest error ImageOf may return: a quoted cut
// prefix of the reference (each byte escaped as \xNN at worst), its length
// and the parser's own words.
const maxErrorLength = 4*quotedReferenceMax + parseDetailMax + 64

func FuzzImageOf(f *testing.F) {
	for _, tt := range imageOfCases {
		f.Add(tt.ref)
	}
	for _, seed := range []string{
		"mcr.microsoft.com/windows/servercore:1809-ltsc2022",
		"ghcr.io/acme/agent:windows-2019-ltsc2022",
		"ghcr.io/acme/agent:servercore21H2-1809",
		"mcr.microsoft.com/windows/servercore:20H2-KB5034127",
		"microsoft/windowsservercore:1709_KB4043961_KB1",
		"a:windows-", "a:-windows", "a:windows-nano-", "a:windows-windows-2022", "a:servercore_kb1",
		"", ":", "a:-", "a:--", "a:10.0.", "a:10.0.4294967296.1", "a:_KB1", "a:nanoserver_KB1",
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
			if msg := err.Error(); len(msg) > maxErrorLength || strings.ContainsFunc(msg, unicode.IsControl) {
				t.Fatalf("ImageOf(%q): an error of %d bytes, or with a control character: %q", ref, len(msg), msg)
			}
			return
		}
		if len(ref) > MaxReferenceLength {
			t.Fatalf("ImageOf read a reference of %d bytes, past MaxReferenceLength", len(ref))
		}
		if !img.Version.IsZero() && !img.Windows {
			t.Fatalf("ImageOf(%q) = %+v: a build without Windows", ref, img)
		}
		if img.Version.HasRevision && !strings.Contains(ref, img.Version.Build.String()+"."+strconv.FormatUint(uint64(img.Version.Revision), 10)) {
			t.Fatalf("ImageOf(%q) = %+v: a revision the tag does not spell", ref, img)
		}
		if b := img.Version.Build; !b.IsZero() && !c.builds[b] &&
			!(img.Version.HasRevision && plausibleWindowsBuild(b)) {
			t.Fatalf("ImageOf(%q) = %+v: a build no release has, and no Insider version", ref, img)
		}

		named, err := reference.ParseNormalizedNamed(ref)
		if err != nil {
			t.Fatalf("ImageOf(%q) succeeded on a reference that does not parse: %v", ref, err)
		}
		tagged, ok := named.(reference.Tagged)
		if !ok {
			return
		}
		tag := tagged.Tag()
		domain, path := reference.Domain(named), reference.Path(named)
		if (domain == "mcr.microsoft.com" && (path == "windows" || strings.HasPrefix(path, "windows/"))) ||
			(domain == "docker.io" && strings.HasPrefix(path, "microsoft/")) {
			return
		}

		// Outside the Windows repositories the path may only add to what
		// the tag alone says: never undo Windows, never change its build.
		plain, plainErr := c.ImageOf("example.com/app:" + tag)
		if plainErr != nil {
			t.Fatalf("ImageOf(%q) succeeded, but its tag alone fails: %v", ref, plainErr)
		}
		if plain.Windows && !img.Windows || !plain.Version.IsZero() && img.Version.Build != plain.Version.Build {
			t.Fatalf("ImageOf(%q) = %+v, but its tag alone reads %+v", ref, img, plain)
		}
		// A path with no release and nothing like a Windows word counts
		// for nothing.
		if bare, _ := c.ImageOf(named.Name()); bare == (Image{}) && !windowsLike(path) && img != plain {
			t.Fatalf("ImageOf(%q) = %+v, but its tag alone reads %+v", ref, img, plain)
		}
		// Tokens are compared in any case.
		if upper, upperErr := c.ImageOf(named.Name() + ":" + strings.ToUpper(tag)); upper != img || upperErr != nil {
			t.Fatalf("ImageOf(%q) = %+v, but the upper-case tag reads %+v, %v", ref, img, upper, upperErr)
		}
		// Numbers alone never make an image Windows outside the Windows
		// repositories, save 10.0.<build>.<revision> of a build some
		// release has.
		if plain.Windows && strings.Trim(tag, "0123456789.-_hH") == "" &&
			!(plain.Version.HasRevision && c.builds[plain.Version.Build]) {
			t.Fatalf("ImageOf(%q) = %+v: a tag of numbers made the image Windows", ref, plain)
		}
	})
}

// windowsLike reports whether path holds anything like a Windows word of
// pathWindowsWords; a superset, so that the fuzz check needs no tokenizer.
func windowsLike(path string) bool {
	return strings.Contains(path, "win") || strings.Contains(path, "servercore") || strings.Contains(path, "nanoserver")
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
