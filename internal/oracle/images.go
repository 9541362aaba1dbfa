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

import "fmt"

// OS values of a Need.
const (
	Linux   = "linux"
	Windows = "windows"
	// AnyOS is a manifest list with Linux and Windows images: it runs on
	// either, and makes a pod neither a Linux nor a Windows pod.
	AnyOS = ""
)

// Need is what an image needs of the node that runs it.
type Need struct {
	OS string
	// Build is the Windows build the image was made for; "" when it names
	// none (a manifest list of several builds, or a HostProcess base image).
	Build string
}

// images are the images the demo, the benchmarks and the tests place, with
// what each needs, by hand from docs/windows-facts.md and the registries'
// listings. An image missing here is an error, never a guess.
var images = map[string]Need{
	// Linux.
	"nginx:1.27": {OS: Linux},
	"redis:7.4":  {OS: Linux},
	"redis:2004": {OS: Linux}, // a bare release number on a Linux image
	"busybox":    {OS: Linux},
	// Prometheus's node exporter publishes Linux images only (amd64,
	// arm64 and others; no Windows entry): the windows_exporter is
	// another image.
	"quay.io/prometheus/node-exporter:v1.8.2": {OS: Linux},
	// Linux and Windows in one manifest list.
	"registry.k8s.io/pause:3.10":                   {OS: AnyOS},
	"registry.k8s.io/e2e-test-images/agnhost:2.53": {OS: AnyOS},
	// Windows, one build.
	"mcr.microsoft.com/windows/servercore:ltsc2019":                       {Windows, Build2019},
	"mcr.microsoft.com/windows/nanoserver:ltsc2019":                       {Windows, Build2019},
	"mcr.microsoft.com/windows/servercore:1809":                           {Windows, Build2019},
	"mcr.microsoft.com/windows/servercore:10.0.17763.4131":                {Windows, Build2019},
	"mcr.microsoft.com/windows/servercore:ltsc2022":                       {Windows, Build2022},
	"mcr.microsoft.com/windows/nanoserver:ltsc2022":                       {Windows, Build2022},
	"mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022": {Windows, Build2022},
	"mcr.microsoft.com/dotnet/aspnet:8.0-nanoserver-ltsc2022":             {Windows, Build2022},
	"mcr.microsoft.com/windows/servercore:ltsc2025":                       {Windows, Build2025},
	"mcr.microsoft.com/windows/nanoserver:ltsc2025":                       {Windows, Build2025},
	"mcr.microsoft.com/windows/server:ltsc2025":                           {Windows, Build2025},
	// Windows, any build.
	"mcr.microsoft.com/dotnet/framework/aspnet:4.8":                                      {Windows, ""},
	"mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image:v1.0.0": {Windows, ""},
}

// Spelling is a real image whose reference alone says what it needs, in one
// of the spellings docs/windows-facts.md lists beyond the release table's.
type Spelling struct {
	Image string
	Need  Need
}

// Spellings are real images of each spelling the facts list, with what
// each needs by hand from the image's sources there, never by reading the
// reference: the tests hold the scheduler's tag reading to them.
var Spellings = []Spelling{
	// The release as the whole tag of a Windows-named repository.
	{"cirrusci/windowsservercore:2019", Need{Windows, Build2019}},
	{"mcr.microsoft.com/windows/servercore:1909", Need{Windows, Build1909}},
	// The release in the repository path.
	{"ghcr.io/sirredbeard/nim-windows-container/nimstable-ltsc2022:latest", Need{Windows, Build2022}},
	{"ghcr.io/sirredbeard/nim-windows-container/nimstable-ltsc2019:latest", Need{Windows, Build2019}},
	// The LTSC year after a flavour.
	{"jetbrains/teamcity-agent:2025.03.2-windowsservercore-2022", Need{Windows, Build2022}},
	{"jetbrains/teamcity-agent:2025.03.2-nanoserver-2022", Need{Windows, Build2022}},
	{"jetbrains/teamcity-server:2022.04.7-nanoserver-1909", Need{Windows, Build1909}},
	// windows glued to the release.
	{"portainer/agent:windows1809-amd64", Need{Windows, Build2019}},
	{"portainer/agent:windows1803-amd64", Need{Windows, Build1803}},
	{"octopusdeploy/worker-tools:6.0.0-windows.ltsc2022", Need{Windows, Build2022}},
	{"octopusdeploy/worker-tools:windows.ltsc2019", Need{Windows, Build2019}},
	// A HostProcess image: Windows, any build.
	{"sigwindowstools/kube-proxy:v1.27.1-calico-hostprocess", Need{Windows, ""}},
	// Linux images that look alike.
	{"mcr.microsoft.com/mssql/server:2019-latest", Need{OS: Linux}},
	{"mcr.microsoft.com/mssql/server:2022-latest", Need{OS: Linux}},
	{"ubuntu:20.04", Need{OS: Linux}},
	{"node:20", Need{OS: Linux}},
	{"dockurr/windows:4.34", Need{OS: Linux}}, // runs Windows in a virtual machine
}

func init() {
	for _, r := range Releases {
		images[r.Image] = Need{Windows, r.Build}
	}
	for _, s := range Spellings {
		images[s.Image] = s.Need
	}
}

// ImageNeed returns what image needs of its node, or an error for an image
// the oracle does not know.
func ImageNeed(image string) (Need, error) {
	n, ok := images[image]
	if !ok {
		return Need{}, fmt.Errorf("the oracle does not know image %q: add it to internal/oracle/images.go", image)
	}
	return n, nil
}
