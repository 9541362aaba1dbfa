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

// imageOfCase is one reference and what ImageOf must read from it.
type imageOfCase struct {
	ref     string
	windows bool
	want    Version
}

func build(number uint32) Version { return Version{Build: build10(number)} }

func revision(number, rev uint32) Version {
	return Version{Build: build10(number), Revision: rev, HasRevision: true}
}

// imageOfCases are also the seed corpus of FuzzImageOf.
var imageOfCases = []imageOfCase{
	// Every release token of the table.
	{ref: "mcr.microsoft.com/windows/servercore:ltsc2016", windows: true, want: build(14393)},
	{ref: "mcr.microsoft.com/windows/nanoserver:1607", windows: true, want: build(14393)},
	{ref: "microsoft/nanoserver:sac2016", windows: true, want: build(14393)},
	{ref: "microsoft/windowsservercore:1709", windows: true, want: build(16299)},
	{ref: "mcr.microsoft.com/windows/servercore:1803", windows: true, want: build(17134)},
	{ref: "mcr.microsoft.com/windows:1809", windows: true, want: build(17763)},
	{ref: "mcr.microsoft.com/windows/servercore:ltsc2019", windows: true, want: build(17763)},
	{ref: "mcr.microsoft.com/windows/servercore:1903", windows: true, want: build(18362)},
	{ref: "mcr.microsoft.com/windows/servercore:1909", windows: true, want: build(18363)},
	{ref: "mcr.microsoft.com/windows/servercore:2004", windows: true, want: build(19041)},
	{ref: "mcr.microsoft.com/windows/servercore:20H2", windows: true, want: build(19042)},
	{ref: "mcr.microsoft.com/windows/nanoserver:2009", windows: true, want: build(19042)},
	{ref: "mcr.microsoft.com/windows/nanoserver:ltsc2022", windows: true, want: build(20348)},
	{ref: "mcr.microsoft.com/windows/server:ltsc2025", windows: true, want: build(26100)},

	// <release>-KB<digits>, <release>_KB<digits>, 10.0.<build>.<revision>, -amd64.
	{ref: "mcr.microsoft.com/windows/servercore:ltsc2019-KB5034127", windows: true, want: build(17763)},
	{ref: "mcr.microsoft.com/windows/servercore:1809-kb5034127-amd64", windows: true, want: build(17763)},
	{ref: "microsoft/windowsservercore:1709_KB4043961", windows: true, want: build(16299)},
	{ref: "microsoft/nanoserver:1709_kb4043961-amd64", windows: true, want: build(16299)},
	{ref: "ghcr.io/acme/app:ltsc2019_KB5034127", windows: true, want: build(17763)},
	{ref: "mcr.microsoft.com/windows/servercore:10.0.17763.437", windows: true, want: revision(17763, 437)},
	{ref: "mcr.microsoft.com/windows/servercore:10.0.20348.2227-amd64", windows: true, want: revision(20348, 2227)},
	{ref: "mcr.microsoft.com/windows/nanoserver:ltsc2022-amd64", windows: true, want: build(20348)},
	{ref: "mcr.microsoft.com/windows/servercore:20h2", windows: true, want: build(19042)},

	// Tokens inside longer tags; the date is not a build.
	{ref: "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019", windows: true, want: build(17763)},
	{ref: "mcr.microsoft.com/dotnet/aspnet:8.0-nanoserver-1809", windows: true, want: build(17763)},
	{ref: "mcr.microsoft.com/dotnet/framework/aspnet:4.8.1-20260714-windowsservercore-ltsc2025", windows: true, want: build(26100)},
	{ref: "mcr.microsoft.com/powershell:lts-nanoserver-ltsc2022", windows: true, want: build(20348)},
	{ref: "golang:1.22-windowsservercore-ltsc2022", windows: true, want: build(20348)},
	{ref: "microsoft/aspnet:4.7.1-windowsservercore-1709", windows: true, want: build(16299)},
	{ref: "mcr.microsoft.com/windows/servercore:1809@sha256:" + sha, windows: true, want: build(17763)},
	{ref: "registry.example.com:5000/team/app:3.2-ltsc2022", windows: true, want: build(20348)},
	{ref: "example.com/app:build-windows-2004", windows: true, want: build(19041)},
	{ref: "example.com/app:1.4-nanoserver-2009", windows: true, want: build(19042)},

	// The year after a windows token is that year's LTSC, also after one
	// qualifier; elsewhere a year is only a version.
	{ref: "ghcr.io/acme/agent:3.0.4-windows-2022-amd64", windows: true, want: build(20348)},
	{ref: "ghcr.io/acme/agent:v2-windows-2019", windows: true, want: build(17763)},
	{ref: "ghcr.io/acme/agent:windows-2016", windows: true, want: build(14393)},
	{ref: "ghcr.io/acme/agent:windows-nano-2025-amd64", windows: true, want: build(26100)},
	{ref: "ghcr.io/acme/agent:1.0-Windows-Server-2022", windows: true, want: build(20348)},
	{ref: "ghcr.io/acme/agent:windows-servercore-2019", windows: true, want: build(17763)},
	{ref: "ghcr.io/acme/agent:windows-2009", windows: true, want: build(19042)},    // a release number, not a year
	{ref: "ghcr.io/acme/agent:windows-2023", windows: true, want: Version{}},       // no LTSC that year
	{ref: "ghcr.io/acme/agent:windows-amd64-2022", windows: true, want: Version{}}, // amd64 is no qualifier
	{ref: "ghcr.io/acme/agent:2022-windows", windows: true, want: Version{}},
	// A year right after a flavour is that year's LTSC too: JetBrains tags
	// teamcity-agent <version>-windowsservercore-2022 and -nanoserver-2022
	// for images on the ltsc2022 base (docs/windows-facts.md), so these
	// two, Windows without a build while only windows came before a year,
	// now name 20348; servercore:2022 is also a one-token tag on a Windows
	// repository.
	{ref: "mcr.microsoft.com/windows/servercore:2022", windows: true, want: build(20348)},
	{ref: "golang:1.22-nanoserver-2022", windows: true, want: build(20348)},
	{ref: "jetbrains/teamcity-agent:2025.03.2-windowsservercore-2022", windows: true, want: build(20348)},
	{ref: "jetbrains/teamcity-agent:2025.03.2-nanoserver-2022", windows: true, want: build(20348)},
	{ref: "jetbrains/teamcity-agent:EAP-windowsservercore-2022", windows: true, want: build(20348)},
	{ref: "jetbrains/teamcity-server:2022.04.7-nanoserver-1909", windows: true, want: build(18363)},
	{ref: "ghcr.io/acme/app:servercore2022", windows: true, want: build(20348)},
	{ref: "ghcr.io/acme/app:servercore1809-2019", windows: true, want: build(17763)}, // a glued flavour is no marker for the next token
	{ref: "ghcr.io/acme/api:2022", windows: false, want: Version{}},
	{ref: "postgres:16-2022", windows: false, want: Version{}},
	{ref: "ghcr.io/acme/api:nano-2025", windows: false, want: Version{}},

	// A flavour glued to its release is a flavour and that release.
	{ref: "registry.gitlab.com/gitlab-org/gitlab-runner/gitlab-runner-helper:x86_64-v16.0.0-servercore1809", windows: true, want: build(17763)},
	{ref: "registry.gitlab.com/gitlab-org/gitlab-runner/gitlab-runner-helper:x86_64-latest-nanoserver21H2", windows: true, want: build(20348)},
	{ref: "ghcr.io/acme/app:nanoserver20H2", windows: true, want: build(19042)},
	{ref: "ghcr.io/acme/app:windowsservercore1809", windows: true, want: build(17763)},
	{ref: "ghcr.io/acme/app:servercoreltsc2022", windows: true, want: build(20348)},
	{ref: "ghcr.io/acme/app:windowsservercoreltsc2019", windows: true, want: build(17763)},
	{ref: "ghcr.io/acme/app:windows-servercore2022", windows: true, want: build(20348)},
	{ref: "ghcr.io/acme/app:servercore1709_KB4043961", windows: true, want: build(16299)},
	{ref: "ghcr.io/acme/app:nanoserver23H2", windows: true, want: Version{}}, // Windows, but 23H2 has no images
	{ref: "ghcr.io/acme/app:nanoserverless", windows: false, want: Version{}},
	{ref: "ghcr.io/acme/app:servercore", windows: true, want: Version{}},

	// Server servicing names count only next to a server flavour: on
	// clients 21H2 is 19044 or 22000, and 22H2 is a client build only.
	{ref: "ghcr.io/acme/app:1.0-servercore-21H2", windows: true, want: build(20348)},
	{ref: "mcr.microsoft.com/windows/servercore:21h2", windows: true, want: build(20348)},
	{ref: "ghcr.io/acme/app:servercore24H2", windows: true, want: build(26100)},
	{ref: "ghcr.io/acme/app:windows-21H2", windows: true, want: Version{}},
	{ref: "microsoft/dotnet:21H2", windows: false, want: Version{}},
	{ref: "ghcr.io/acme/app:21H2", windows: false, want: Version{}},
	{ref: "ghcr.io/acme/app:servercore22H2", windows: true, want: Version{}},
	{ref: "mcr.microsoft.com/windows/servercore:22H2", windows: true, want: Version{}},

	// The windows word glued to a known release or an LTSC year, directly
	// (portainer/agent:windows1809-amd64) or with a dot
	// (octopusdeploy/worker-tools:6.0.0-windows.ltsc2022).
	{ref: "portainer/agent:windows1809-amd64", windows: true, want: build(17763)},
	{ref: "portainer/agent:windows1803-amd64", windows: true, want: build(17134)},
	{ref: "octopusdeploy/worker-tools:6.0.0-windows.ltsc2022", windows: true, want: build(20348)},
	{ref: "octopusdeploy/worker-tools:windows.ltsc2019", windows: true, want: build(17763)},
	{ref: "ghcr.io/acme/agent:windowsltsc2022-amd64", windows: true, want: build(20348)},
	{ref: "ghcr.io/acme/agent:windows2019", windows: true, want: build(17763)},
	{ref: "ghcr.io/acme/agent:windows.2022", windows: true, want: build(20348)},
	{ref: "ghcr.io/acme/agent:windows21H2", windows: true, want: Version{}}, // a servicing name still needs a server flavour
	{ref: "ghcr.io/acme/agent:windows10", windows: false, want: Version{}},  // a client, not a release of the table
	{ref: "ghcr.io/acme/agent:windows2023", windows: false, want: Version{}},
	{ref: "ghcr.io/acme/agent:windows.tools", windows: false, want: Version{}},

	// hostprocess marks a HostProcess image: Windows, no build of its own
	// (sigwindowstools/kube-proxy:v1.27.1-calico-hostprocess); a release
	// beside it still counts for the image run as an ordinary container.
	{ref: "sigwindowstools/kube-proxy:v1.27.1-calico-hostprocess", windows: true, want: Version{}},
	{ref: "ghcr.io/acme/agent:v1-HostProcess", windows: true, want: Version{}},
	{ref: "ghcr.io/acme/agent:v1-hostprocess-ltsc2022", windows: true, want: build(20348)},
	{ref: "ghcr.io/acme/agent:hostprocess-1809", windows: true, want: build(17763)},
	{ref: "ghcr.io/acme/agent:host-process", windows: false, want: Version{}},
	{ref: "ghcr.io/acme/agent:v1-hostprocesses", windows: false, want: Version{}},
	{ref: "ghcr.io/acme/hostprocess:1809", windows: false, want: Version{}}, // not a path word

	// A windows token makes the image Windows, with or without a build.
	{ref: "acme/app:windows", windows: true, want: Version{}},
	{ref: "ghcr.io/acme/exporter:0.25.1-windows-amd64", windows: true, want: Version{}},
	{ref: "ghcr.io/acme/exporter:WINDOWS-1809", windows: true, want: build(17763)},
	{ref: "ghcr.io/acme/exporter:windows_amd64", windows: false, want: Version{}}, // one token, not the word
	{ref: "ghcr.io/acme/exporter:nonwindows", windows: false, want: Version{}},

	// Insider builds: 10.0.<build>.<revision> outside the table is that
	// build, where the image is otherwise Windows.
	{ref: "mcr.microsoft.com/windows/servercore/insider:10.0.20344.1", windows: true, want: revision(20344, 1)},
	{ref: "mcr.microsoft.com/windows/nanoserver/insider:10.0.25982.1000-amd64", windows: true, want: revision(25982, 1000)},
	{ref: "ghcr.io/acme/app:nanoserver-10.0.20344.1", windows: true, want: revision(20344, 1)},
	{ref: "ghcr.io/acme/app:10.0.20344.1", windows: false, want: Version{}},
	{ref: "mcr.microsoft.com/windows/servercore:10.0.10239.1", windows: true, want: Version{}}, // before Windows 10
	{ref: "mcr.microsoft.com/windows/servercore:10.0.65536.1", windows: true, want: Version{}}, // no 16-bit build
	{ref: "mcr.microsoft.com/windows/servercore:11.0.20344.1", windows: true, want: Version{}},
	{ref: "mcr.microsoft.com/windows/servercore:10.1.20344.1", windows: true, want: Version{}},
	{ref: "mcr.microsoft.com/windows/servercore:10.0.017763.437", windows: true, want: Version{}}, // not as Windows spells it
	{ref: "ghcr.io/acme/app:10.0.17763.0437", windows: false, want: Version{}},

	// ltscYYYY counts in any repository; a bare number only with Windows context.
	{ref: "ghcr.io/acme/api:ltsc2019", windows: true, want: build(17763)},
	{ref: "ghcr.io/acme/api:2004", windows: false, want: Version{}},
	{ref: "ghcr.io/acme/api:1809", windows: false, want: Version{}},
	{ref: "ghcr.io/acme/api:2009", windows: false, want: Version{}},
	{ref: "redis:1709", windows: false, want: Version{}},
	{ref: "acme/app:v2-20H2", windows: false, want: Version{}},
	{ref: "acme/app:1709_KB4043961", windows: false, want: Version{}},

	// A release in the repository path counts, read like a tag whose tokens
	// are the segment's: real images put it there
	// (ghcr.io/sirredbeard/nim-windows-container/nimstable-ltsc2022,
	// docs/windows-facts.md). These five read as not Windows while only the
	// tag counted.
	{ref: "ghcr.io/acme/ltsc2019-tools:v1", windows: true, want: build(17763)},
	{ref: "ghcr.io/windows/servercore/ltsc2022:latest", windows: true, want: build(20348)},
	{ref: "microsoft/ltsc2019:1.0", windows: true, want: build(17763)},
	{ref: "ghcr.io/acme/servercore1809:latest", windows: true, want: build(17763)},
	{ref: "ghcr.io/sirredbeard/nim-windows-container/nimstable-ltsc2022:latest", windows: true, want: build(20348)},
	{ref: "ghcr.io/sirredbeard/nim-windows-container/nimstable-ltsc2019:latest", windows: true, want: build(17763)},
	{ref: "ghcr.io/acme/app-ltsc2022:latest", windows: true, want: build(20348)},
	{ref: "ghcr.io/acme/app_ltsc2022:latest", windows: true, want: build(20348)},
	{ref: "ghcr.io/acme/windows-2019/agent:v1", windows: true, want: build(17763)},
	{ref: "ghcr.io/acme/win-2022/agent:v1", windows: true, want: build(20348)},
	{ref: "ghcr.io/acme/windows-1809:latest", windows: true, want: build(17763)},
	{ref: "ghcr.io/acme/app-ltsc2022:1.0-windowsservercore-ltsc2022", windows: true, want: build(20348)},
	// A bare number or year in the path needs a Windows word in its own
	// segment: app-2019 is an app's version, windows/1809 a folder name.
	{ref: "ghcr.io/acme/app-1809:latest", windows: false, want: Version{}},
	{ref: "ghcr.io/acme/app-2019:latest", windows: false, want: Version{}},
	{ref: "ghcr.io/acme/windows/1809:latest", windows: false, want: Version{}},
	{ref: "ghcr.io/acme/2022-windows:latest", windows: false, want: Version{}},

	// A tag that is one release token, on a repository whose path has the
	// token windows, win, nanoserver, servercore or windowsservercore, is
	// that release, a year its LTSC (cirrusci/windowsservercore:2019,
	// docs/windows-facts.md). These two read as not Windows while only the
	// tag counted.
	{ref: "ghcr.io/acme/windows:1809", windows: true, want: build(17763)},
	{ref: "ghcr.io/acme/windows/nanoserver:2022", windows: true, want: build(20348)},
	{ref: "cirrusci/windowsservercore:2019", windows: true, want: build(17763)},
	{ref: "ghcr.io/acme/servercore:20H2", windows: true, want: build(19042)},
	{ref: "ghcr.io/acme/servercore:1909", windows: true, want: build(18363)},
	{ref: "ghcr.io/acme/nanoserver:2004", windows: true, want: build(19041)},
	{ref: "ghcr.io/acme/servercore:2009", windows: true, want: build(19042)},
	{ref: "ghcr.io/acme/servercore:ltsc2022", windows: true, want: build(20348)},
	{ref: "ghcr.io/acme/servercore:21H2", windows: true, want: build(20348)}, // a path flavour is a server flavour
	{ref: "ghcr.io/acme/windows:21H2", windows: false, want: Version{}},      // windows is not
	{ref: "ghcr.io/acme/pause-win:1809", windows: true, want: build(17763)},
	{ref: "ghcr.io/acme/windows-exporter:2022", windows: true, want: build(20348)},
	{ref: "ghcr.io/acme/windows_exporter:1809", windows: true, want: build(17763)},
	{ref: "ghcr.io/acme/windows:2019_KB5034127", windows: true, want: build(17763)},
	{ref: "ghcr.io/acme/windows:10.0.20344.1", windows: true, want: revision(20344, 1)},
	{ref: "ghcr.io/acme/windows:2023", windows: false, want: Version{}}, // no LTSC that year
	// Only a one-token tag, and the path alone names no build.
	{ref: "ghcr.io/acme/windows:1809-amd64", windows: false, want: Version{}},
	{ref: "ghcr.io/acme/windows-exporter:v2-1809", windows: false, want: Version{}},
	{ref: "ghcr.io/acme/windows-exporter:v0.25.1", windows: false, want: Version{}},
	{ref: "ghcr.io/acme/windows:latest", windows: false, want: Version{}},
	// A Linux image that runs Windows in a virtual machine.
	{ref: "dockurr/windows:4.34", windows: false, want: Version{}},
	{ref: "dockurr/windows:latest", windows: false, want: Version{}},
	// Only whole tokens are Windows words.
	{ref: "ghcr.io/acme/winston:2019", windows: false, want: Version{}},
	{ref: "ghcr.io/acme/twin-api:2022", windows: false, want: Version{}},
	{ref: "ghcr.io/acme/windowsill:1809", windows: false, want: Version{}},
	{ref: "ghcr.io/acme/windows.tools:1809", windows: false, want: Version{}},
	{ref: "ghcr.io/acme/api:2022", windows: false, want: Version{}},

	// No tag: digest-only, or none at all.
	{ref: "mcr.microsoft.com/windows/servercore@sha256:" + sha, windows: true, want: Version{}},
	{ref: "nginx@sha256:" + sha, windows: false, want: Version{}},
	{ref: "nginx", windows: false, want: Version{}},

	// Windows without a build: manifest lists and flavour tokens.
	{ref: "mcr.microsoft.com/dotnet/framework/aspnet:4.8", windows: false, want: Version{}},
	{ref: "mcr.microsoft.com/windows/servercore/iis", windows: true, want: Version{}},
	{ref: "golang:nanoserver", windows: true, want: Version{}},
	{ref: "golang:1.22-windowsservercore", windows: true, want: Version{}},

	// Not Windows: Linux images whose tags look like releases.
	{ref: "ubuntu:20.04", windows: false, want: Version{}},
	{ref: "node:20", windows: false, want: Version{}},
	{ref: "ghcr.io/acme/api:2019.1", windows: false, want: Version{}},
	{ref: "mcr.microsoft.com/mssql/server:2019-latest", windows: false, want: Version{}},
	{ref: "mcr.microsoft.com/mssql/server:2022-CU14-ubuntu-22.04", windows: false, want: Version{}},
	{ref: "postgres:2022", windows: false, want: Version{}},
	{ref: "redis:1909", windows: false, want: Version{}},
	{ref: "ghcr.io/acme/server:20H2", windows: false, want: Version{}},
	{ref: "ghcr.io/acme/core:2019", windows: false, want: Version{}},

	// Not Windows.
	{ref: "nginx:1.27", windows: false, want: Version{}},
	{ref: "mcr.microsoft.com/dotnet/runtime:8.0", windows: false, want: Version{}},
	{ref: "busybox:10.0.1.2", windows: false, want: Version{}},
	{ref: "app:10.0.99999.1", windows: false, want: Version{}},
	{ref: "mongo:latest", windows: false, want: Version{}},
	{ref: "acme/app:ltsc2019x", windows: false, want: Version{}},
	{ref: "acme/app:2019_KB", windows: false, want: Version{}},
}

func TestImageOf(t *testing.T) {
	c := DefaultCatalog()
	for _, tt := range imageOfCases {
		t.Run(tt.ref, func(t *testing.T) {
			got, err := c.ImageOf(tt.ref)
			if err != nil {
				t.Fatalf("ImageOf(%q) error: %v", tt.ref, err)
			}
			if got.Windows != tt.windows || got.Version != tt.want {
				t.Errorf("ImageOf(%q) = %+v, want Windows=%v Version=%+v", tt.ref, got, tt.windows, tt.want)
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
}

func TestImageOfConflicts(t *testing.T) {
	tests := []struct {
		ref           string
		first, second Build
	}{
		{ref: "mcr.microsoft.com/windows/servercore:1809-ltsc2022", first: build10(17763), second: build10(20348)},
		{ref: "ghcr.io/acme/agent:windows-2019-ltsc2022", first: build10(17763), second: build10(20348)},
		{ref: "ghcr.io/acme/agent:servercore21H2-1809", first: build10(20348), second: build10(17763)},
		{ref: "mcr.microsoft.com/windows/servercore/insider:10.0.20344.1-ltsc2022", first: build10(20344), second: build10(20348)},
		{ref: "microsoft/nanoserver:1709_KB4043961-1803", first: build10(16299), second: build10(17134)},
		// The tag's build comes first, then the path's.
		{ref: "ghcr.io/acme/app-ltsc2019:ltsc2022", first: build10(20348), second: build10(17763)},
		{ref: "ghcr.io/acme/windows-2019:ltsc2022", first: build10(20348), second: build10(17763)},
		{ref: "ghcr.io/acme/servercore-ltsc2022:2019", first: build10(17763), second: build10(20348)},
	}
	c := DefaultCatalog()
	for _, tt := range tests {
		img, err := c.ImageOf(tt.ref)
		var conflict *ConflictingTagError
		if !errors.As(err, &conflict) || conflict.First != tt.first || conflict.Second != tt.second || conflict.Image != tt.ref {
			t.Errorf("ImageOf(%q) = %+v, %v; want a ConflictingTagError for %v and %v", tt.ref, img, err, tt.first, tt.second)
		}
	}
}

// TestImageOfSameBuildTwice: two spellings of one build are no conflict, and
// the revision of a 10.0.<build>.<revision> token is kept wherever it stands.
func TestImageOfSameBuildTwice(t *testing.T) {
	tests := []struct {
		ref  string
		want Version
	}{
		{ref: "mcr.microsoft.com/windows/servercore:ltsc2019-10.0.17763.437", want: revision(17763, 437)},
		{ref: "mcr.microsoft.com/windows/servercore:10.0.17763.437-ltsc2019", want: revision(17763, 437)},
		{ref: "ghcr.io/acme/agent:windows-2022-ltsc2022-servercore21H2", want: build(20348)},
		{ref: "mcr.microsoft.com/windows/nanoserver:20H2-2009", want: build(19042)},
		{ref: "ghcr.io/acme/servercore-ltsc2019:10.0.17763.437", want: revision(17763, 437)},
		{ref: "ghcr.io/acme/windows-2022:ltsc2022", want: build(20348)},
	}
	c := DefaultCatalog()
	for _, tt := range tests {
		img, err := c.ImageOf(tt.ref)
		if err != nil || !img.Windows || img.Version != tt.want {
			t.Errorf("ImageOf(%q) = %+v, %v; want Windows %+v", tt.ref, img, err, tt.want)
		}
	}
}

func TestCatalogExtraReleases(t *testing.T) {
	c, err := NewCatalog([]Release{
		{Token: "ltsc2028", Build: build10(30000)},
		{Token: "2404", Build: build10(27000)},
		{Token: "LTSC2022", Build: build10(20349)}, // re-points a known token, any case
		{Token: "22H2", Build: build10(20350)},     // an administrator may map a client servicing name
		{Token: "21h2", Build: build10(22000)},     // or re-point a server one, which then needs only Windows context
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		ref  string
		want Build
	}{
		{ref: "ghcr.io/acme/app:ltsc2028", want: build10(30000)},
		{ref: "mcr.microsoft.com/windows/servercore:2404", want: build10(27000)},
		{ref: "ghcr.io/acme/app:2404", want: Build{}}, // a bare number still needs Windows context
		{ref: "ghcr.io/acme/app:ltsc2022", want: build10(20349)},
		{ref: "ghcr.io/acme/app:windows-2022", want: build10(20349)}, // the year reads the catalog's ltsc<year>
		{ref: "ghcr.io/acme/app:windows-2028", want: build10(30000)},
		{ref: "ghcr.io/acme/app:windows-22H2", want: build10(20350)}, // an extra bare token needs only Windows context
		{ref: "ghcr.io/acme/app:22H2", want: Build{}},
		{ref: "ghcr.io/acme/app:windows-21H2", want: build10(22000)},
		{ref: "mcr.microsoft.com/windows/servercore:10.0.30000.12", want: build10(30000)},
		{ref: "ghcr.io/acme/app:10.0.30000.12", want: build10(30000)}, // a build some release has counts anywhere
	}
	for _, tt := range tests {
		img, err := c.ImageOf(tt.ref)
		if err != nil || img.Version.Build != tt.want {
			t.Errorf("ImageOf(%q) = %+v, %v; want build %v", tt.ref, img, err, tt.want)
		}
	}

	for _, tt := range []struct {
		name  string
		extra []Release
	}{
		{name: "empty token", extra: []Release{{Token: "", Build: build10(1)}}},
		{name: "separator", extra: []Release{{Token: "ltsc-2028", Build: build10(1)}}},
		{name: "slash", extra: []Release{{Token: "a/b", Build: build10(1)}}},
		{name: "duplicate", extra: []Release{{Token: "x1", Build: build10(1)}, {Token: "X1", Build: build10(2)}}},
		{name: "no build", extra: []Release{{Token: "ltsc2028"}}},
	} {
		if _, err := NewCatalog(tt.extra); err == nil {
			t.Errorf("%s: NewCatalog(%v) succeeded, want an error", tt.name, tt.extra)
		}
	}
}

func TestIsBareReleaseNumber(t *testing.T) {
	tests := []struct {
		token string
		want  bool
	}{
		{token: "1809", want: true}, {token: "2004", want: true}, {token: "2009", want: true},
		{token: "20H2", want: true}, {token: "20h2", want: true}, {token: "21H2", want: true},
		{token: "ltsc2019", want: false}, {token: "sac2016", want: false}, {token: "H2", want: false},
		{token: "20H", want: false}, {token: "2H0H1", want: false}, {token: "", want: true},
	}
	for _, tt := range tests {
		if got := isBareReleaseNumber(tt.token); got != tt.want {
			t.Errorf("isBareReleaseNumber(%q) = %v, want %v", tt.token, got, tt.want)
		}
	}
}

func TestTrimKB(t *testing.T) {
	tests := []struct {
		word, want string
	}{
		{word: "1709_kb4043961", want: "1709"},
		{word: "ltsc2019_kb5034127", want: "ltsc2019"},
		{word: "servercore1809_kb1", want: "servercore1809"},
		{word: "1709_kb", want: "1709_kb"},               // no update number
		{word: "_kb4043961", want: "_kb4043961"},         // no release
		{word: "1709_kb404x", want: "1709_kb404x"},       // not a number
		{word: "1709_kb1_kb2", want: "1709_kb1"},         // only the last suffix
		{word: "1709-kb4043961", want: "1709-kb4043961"}, // a dash separates tokens before this
	}
	for _, tt := range tests {
		if got := trimKB(tt.word); got != tt.want {
			t.Errorf("trimKB(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
}
