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
	"errors"
	"testing"
)

func TestImageOf(t *testing.T) {
	v := func(number, revision uint32) Version {
		return Version{Build: build10(number), Revision: revision, HasRevision: true}
	}
	b := func(number uint32) Version { return Version{Build: build10(number)} }

	tests := []struct {
		ref         string
		wantWindows bool
		want        Version
	}{
		// Every release token of the facts table.
		{"mcr.microsoft.com/windows/servercore:ltsc2016", true, b(14393)},
		{"mcr.microsoft.com/windows/nanoserver:1607", true, b(14393)},
		{"microsoft/nanoserver:sac2016", true, b(14393)},
		{"microsoft/windowsservercore:1709", true, b(16299)},
		{"mcr.microsoft.com/windows/servercore:1803", true, b(17134)},
		{"mcr.microsoft.com/windows:1809", true, b(17763)},
		{"mcr.microsoft.com/windows/servercore:ltsc2019", true, b(17763)},
		{"mcr.microsoft.com/windows/servercore:1903", true, b(18362)},
		{"mcr.microsoft.com/windows/servercore:1909", true, b(18363)},
		{"mcr.microsoft.com/windows/servercore:2004", true, b(19041)},
		{"mcr.microsoft.com/windows/servercore:20H2", true, b(19042)},
		{"mcr.microsoft.com/windows/nanoserver:ltsc2022", true, b(20348)},
		{"mcr.microsoft.com/windows/server:ltsc2025", true, b(26100)},

		// <release>-KB<digits>, 10.0.<build>.<revision>, -amd64.
		{"mcr.microsoft.com/windows/servercore:ltsc2019-KB5034127", true, b(17763)},
		{"mcr.microsoft.com/windows/servercore:1809-kb5034127-amd64", true, b(17763)},
		{"mcr.microsoft.com/windows/servercore:10.0.17763.437", true, v(17763, 437)},
		{"mcr.microsoft.com/windows/servercore:10.0.20348.2227-amd64", true, v(20348, 2227)},
		{"mcr.microsoft.com/windows/nanoserver:ltsc2022-amd64", true, b(20348)},
		{"mcr.microsoft.com/windows/servercore:20h2", true, b(19042)},

		// Tokens inside longer tags; the date is not a build.
		{"mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019", true, b(17763)},
		{"mcr.microsoft.com/dotnet/aspnet:8.0-nanoserver-1809", true, b(17763)},
		{"mcr.microsoft.com/dotnet/framework/aspnet:4.8.1-20260714-windowsservercore-ltsc2025", true, b(26100)},
		{"mcr.microsoft.com/powershell:lts-nanoserver-ltsc2022", true, b(20348)},
		{"golang:1.22-windowsservercore-ltsc2022", true, b(20348)},
		{"microsoft/aspnet:4.7.1-windowsservercore-1709", true, b(16299)},
		{"mcr.microsoft.com/windows/servercore:1809@sha256:" + sha, true, b(17763)},
		{"registry.example.com:5000/team/app:3.2-ltsc2022", true, b(20348)},
		{"example.com/app:build-windows-2004", true, b(19041)},

		// ltscYYYY counts in any repository; a bare number only with Windows context.
		{"ghcr.io/acme/api:ltsc2019", true, b(17763)},
		{"ghcr.io/acme/api:2004", false, Version{}},
		{"ghcr.io/acme/api:1809", false, Version{}},
		{"redis:1709", false, Version{}},
		{"acme/app:v2-20H2", false, Version{}},

		// Only the tag counts, never the path.
		{"ghcr.io/acme/ltsc2019-tools:v1", false, Version{}},
		{"ghcr.io/windows/servercore/ltsc2022:latest", false, Version{}},
		{"microsoft/ltsc2019:1.0", false, Version{}},

		// No tag: digest-only, or none at all.
		{"mcr.microsoft.com/windows/servercore@sha256:" + sha, true, Version{}},
		{"nginx@sha256:" + sha, false, Version{}},
		{"nginx", false, Version{}},

		// Windows without a build: manifest lists and flavour tokens.
		{"mcr.microsoft.com/dotnet/framework/aspnet:4.8", false, Version{}},
		{"mcr.microsoft.com/windows/servercore/iis", true, Version{}},
		{"golang:nanoserver", true, Version{}},
		{"golang:1.22-windowsservercore", true, Version{}},

		// Not Windows.
		{"nginx:1.27", false, Version{}},
		{"mcr.microsoft.com/dotnet/runtime:8.0", false, Version{}},
		{"busybox:10.0.1.2", false, Version{}},
		{"app:10.0.99999.1", false, Version{}},
		{"mongo:latest", false, Version{}},
		{"acme/app:ltsc2019x", false, Version{}},
		{"acme/app:windows", false, Version{}},
	}
	c := DefaultCatalog()
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			got, err := c.ImageOf(tt.ref)
			if err != nil {
				t.Fatalf("ImageOf(%q) error: %v", tt.ref, err)
			}
			if got.Windows != tt.wantWindows || got.Version != tt.want {
				t.Errorf("ImageOf(%q) = %+v, want Windows=%v Version=%+v", tt.ref, got, tt.wantWindows, tt.want)
			}
		})
	}
}

const sha = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestImageOfErrors(t *testing.T) {
	c := DefaultCatalog()
	for _, ref := range []string{"", "acme/Upper:1", "a:b:c:d", "nginx:" + string(make([]byte, 200))} {
		if _, err := c.ImageOf(ref); err == nil {
			t.Errorf("ImageOf(%q): want an error", ref)
		}
	}

	_, err := c.ImageOf("mcr.microsoft.com/windows/servercore:1809-ltsc2022")
	var conflict *ConflictingTagError
	if !errors.As(err, &conflict) || conflict.First != build10(17763) || conflict.Second != build10(20348) {
		t.Errorf("two builds in one tag: got %v, want a ConflictingTagError for 10.0.17763 and 10.0.20348", err)
	}
	// The same build twice is no conflict, and the revision is kept.
	img, err := c.ImageOf("mcr.microsoft.com/windows/servercore:ltsc2019-10.0.17763.437")
	if err != nil || img.Version != (Version{Build: build10(17763), Revision: 437, HasRevision: true}) {
		t.Errorf("ltsc2019-10.0.17763.437 = %+v, %v", img, err)
	}
}

func TestCatalogExtraReleases(t *testing.T) {
	c, err := NewCatalog([]Release{
		{Token: "ltsc2028", Build: build10(30000)},
		{Token: "2404", Build: build10(27000)},
		{Token: "LTSC2022", Build: build10(20349)}, // re-points a known token, any case
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		ref  string
		want Build
	}{
		{"ghcr.io/acme/app:ltsc2028", build10(30000)},
		{"mcr.microsoft.com/windows/servercore:2404", build10(27000)},
		{"ghcr.io/acme/app:2404", Build{}}, // a bare number still needs Windows context
		{"ghcr.io/acme/app:ltsc2022", build10(20349)},
		{"mcr.microsoft.com/windows/servercore:10.0.30000.12", build10(30000)},
	}
	for _, tt := range tests {
		img, err := c.ImageOf(tt.ref)
		if err != nil || img.Version.Build != tt.want {
			t.Errorf("ImageOf(%q) = %+v, %v; want build %v", tt.ref, img, err, tt.want)
		}
	}

	for name, extra := range map[string][]Release{
		"empty token": {{Token: "", Build: build10(1)}},
		"separator":   {{Token: "ltsc-2028", Build: build10(1)}},
		"slash":       {{Token: "a/b", Build: build10(1)}},
		"duplicate":   {{Token: "x1", Build: build10(1)}, {Token: "X1", Build: build10(2)}},
		"no build":    {{Token: "ltsc2028"}},
	} {
		if _, err := NewCatalog(extra); err == nil {
			t.Errorf("%s: NewCatalog(%v) succeeded, want an error", name, extra)
		}
	}
}

func TestIsBareReleaseNumber(t *testing.T) {
	for token, want := range map[string]bool{
		"1809": true, "2004": true, "20H2": true, "20h2": true, "21H2": true,
		"ltsc2019": false, "sac2016": false, "H2": false, "20H": false, "2H0H1": false, "": true,
	} {
		if got := isBareReleaseNumber(token); got != want {
			t.Errorf("isBareReleaseNumber(%q) = %v, want %v", token, got, want)
		}
	}
}
