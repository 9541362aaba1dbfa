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

package oracle

// Builds of the Windows Server releases, as a node's
// node.kubernetes.io/windows-build label spells them.
const (
	Build2016 = "10.0.14393" // Windows Server 2016 (ltsc2016, 1607)
	Build1709 = "10.0.16299"
	Build1803 = "10.0.17134"
	Build2019 = "10.0.17763" // Windows Server 2019 (ltsc2019, 1809)
	Build1903 = "10.0.18362"
	Build1909 = "10.0.18363"
	Build2004 = "10.0.19041"
	Build20H2 = "10.0.19042"
	Build2022 = "10.0.20348" // Windows Server 2022 (ltsc2022)
	Build23H2 = "10.0.25398" // Windows Server 23H2: hosts only, no images of its own
	Build2025 = "10.0.26100" // Windows Server 2025 (ltsc2025)
)

// Release is one row of the tag table of docs/windows-facts.md, with an
// image spelled as real registries spell that release.
type Release struct {
	Token, Build, Image string
}

// Releases are every token of the tag table.
var Releases = []Release{
	{"ltsc2016", Build2016, "mcr.microsoft.com/windows/servercore:ltsc2016"},
	{"1607", Build2016, "mcr.microsoft.com/windows/nanoserver:1607"},
	{"sac2016", Build2016, "microsoft/nanoserver:sac2016"},
	{"1709", Build1709, "microsoft/aspnet:4.7.1-windowsservercore-1709"},
	{"1803", Build1803, "mcr.microsoft.com/windows/servercore:1803"},
	{"1809", Build2019, "mcr.microsoft.com/dotnet/aspnet:8.0-nanoserver-1809"},
	{"ltsc2019", Build2019, "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019"},
	{"1903", Build1903, "mcr.microsoft.com/windows/servercore:1903"},
	{"1909", Build1909, "mcr.microsoft.com/windows/nanoserver:1909"},
	{"2004", Build2004, "mcr.microsoft.com/windows/servercore:2004-amd64"},
	{"20H2", Build20H2, "mcr.microsoft.com/windows/servercore:20H2"},
	{"ltsc2022", Build2022, "mcr.microsoft.com/powershell:lts-nanoserver-ltsc2022"},
	{"ltsc2025", Build2025, "mcr.microsoft.com/dotnet/framework/aspnet:4.8.1-20260714-windowsservercore-ltsc2025"},
}

// HostBuilds are the builds a Windows node may report: every release's,
// and 23H2, a host build with no images of its own.
var HostBuilds = []string{
	Build2016, Build1709, Build1803, Build2019, Build1903, Build1909,
	Build2004, Build20H2, Build2022, Build23H2, Build2025,
}
