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

import "strings"

// Operating systems, spelt as the kubernetes.io/os label, .spec.os.name and
// an OCI platform's os field spell them.
const (
	OSLinux   = "linux"
	OSWindows = "windows"
)

// Platform is one variant of an image that a host may run: an entry of an
// OCI image index or Docker manifest list, or the config of a single image.
type Platform struct {
	// OS is the platform's os field, lower case ("windows", "linux").
	OS string
	// Arch is the platform's architecture ("amd64", "arm64"), or "" when it
	// is not known and any architecture may run it.
	Arch string
	// Version is the build (and revision) of a Windows platform's
	// os.version. Zero when the entry carries none: containerd then lets
	// any build pull it, and so does Admits.
	Version Version
}

// ParseOSVersion reads an OCI os.version of a Windows platform
// ("10.0.20348.2227"; some lists carry only "10.0.20348"). Anything else
// does not parse, and neither does a build of all zeros: Admits reads the
// zero Version as "no os.version, any build", which a malformed "0.0.0"
// must not turn into.
func ParseOSVersion(s string) (Version, bool) {
	v, ok := ParseKernelVersion(s)
	if !ok || v.Build.IsZero() {
		return Version{}, false
	}
	return v, true
}

// ArchMatches reports whether an image built for arch runs on a host of
// hostArch. An unknown architecture on either side matches, as the
// scheduler cannot tell otherwise; 386 images run on amd64 hosts, as
// containerd's platform matcher allows.
func ArchMatches(arch, hostArch string) bool {
	if arch == "" || hostArch == "" || strings.EqualFold(arch, hostArch) {
		return true
	}
	return strings.EqualFold(hostArch, "amd64") && strings.EqualFold(arch, "386")
}

// Admits reports whether some platform of an image runs on a host of OS
// hostOS, architecture hostArch and, for Windows, build host: the rule
// containerd applies when it picks an entry of a list (an entry of the
// host's OS and architecture whose os.version the host runs, or that has
// none). host is ignored for other OSes.
func (m Mode) Admits(platforms []Platform, hostOS, hostArch string, host Build) bool {
	for i := range platforms {
		p := &platforms[i]
		if !strings.EqualFold(p.OS, hostOS) || !ArchMatches(p.Arch, hostArch) {
			continue
		}
		if !strings.EqualFold(hostOS, OSWindows) || p.Version.IsZero() || m.Runs(host, p.Version.Build) {
			return true
		}
	}
	return false
}
