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

// BuildState says how a host reports its Windows build.
type BuildState uint8

const (
	// BuildKnown: the build label, or a Windows kernel version.
	BuildKnown BuildState = iota
	// BuildMissing: neither the label nor a Windows kernel version.
	BuildMissing
	// BuildMalformed: a build label that is not Major.Minor.Build. The
	// kubelet never writes one, so someone set it by hand; neither it nor
	// the kernel version is trusted.
	BuildMalformed
)

// Host is what a node offers a pod: its OS, architecture and, for Windows,
// its build with the revision its kernel version shows. Host is comparable,
// so that nodes alike share one verdict.
type Host struct {
	// OS is as the node labels spell it, compared case-insensitively; ""
	// when the node has no OS label, which Verdict reads as Linux (see osOf).
	OS      string
	Arch    string // "" when the node does not say
	Version Version
	State   BuildState
}

// Need is what a pod needs of a host, worked out once per pod.
type Need struct {
	// OS is the OS the pod must run on, or "" when any OS will do.
	OS string
	// Images holds, for each image that constrains the host beyond its
	// OS, the platforms it comes in: a host must run some platform of
	// every image. An image whose tag names a build is one Windows
	// platform of that build; a manifest list is all its entries.
	Images [][]Platform
}

// Fit is the verdict on one host for one pod.
type Fit uint8

const (
	Fits Fit = iota
	// WrongOS: the host runs another OS than the pod's.
	WrongOS
	// NoBuild: the pod needs a Windows build the host does not report.
	NoBuild
	// MalformedBuild: the host's build label does not parse.
	MalformedBuild
	// WrongBuild: no platform of some image runs on the host's build.
	WrongBuild
	// WrongArch: some image has no platform of the host's OS and
	// architecture.
	WrongArch
)

// Verdict decides whether a host can run a pod that needs need. It is the
// one home of that rule: the plugin's Filter, its narrowing of the node
// list, its queueing hints and anything that publishes the constraint all
// ask it. The OS is read first, since most hosts a pod does not fit run the
// other OS. It does not allocate.
func (m Mode) Verdict(need *Need, host *Host) Fit {
	hostOS := host.osOf()
	if need.OS != "" && !strings.EqualFold(hostOS, need.OS) {
		return WrongOS
	}
	for _, platforms := range need.Images {
		if m.Admits(platforms, hostOS, host.Arch, host.Version.Build) {
			continue
		}
		if !hasPlatformFor(platforms, hostOS, host.Arch) {
			return WrongArch
		}
		switch host.State {
		case BuildMissing:
			return NoBuild
		case BuildMalformed:
			return MalformedBuild
		}
		return WrongBuild
	}
	return Fits
}

// osOf is the OS a host runs pods of. A host with no OS label runs Linux
// pods: every kubelet labels its node with the OS it runs on, a Windows
// kubelet always, so a node without the label is none of theirs (a
// simulated node, as upstream's scheduler_perf creates them) and is taken
// for the Linux node the stock scheduler places such pods on, never for a
// Windows one.
func (h *Host) osOf() string {
	if h.OS == "" {
		return OSLinux
	}
	return h.OS
}

// hasPlatformFor reports whether some platform is of the host's OS and
// architecture, whatever its build.
func hasPlatformFor(platforms []Platform, hostOS, hostArch string) bool {
	for i := range platforms {
		if strings.EqualFold(platforms[i].OS, hostOS) && ArchMatches(platforms[i].Arch, hostArch) {
			return true
		}
	}
	return false
}

// Exact reports whether the host's build is the very build some platform
// of the pod's images was built for: among the hosts that fit, those run an
// image its publisher built for them, rather than one they merely run.
func (need *Need) Exact(host *Host) bool {
	if host.State != BuildKnown {
		return false
	}
	for _, platforms := range need.Images {
		for i := range platforms {
			if platforms[i].Version.Build == host.Version.Build {
				return true
			}
		}
	}
	return false
}

// SomeHostRuns reports whether any Windows host build, of the given
// architecture, can run some platform of every image, and names the newest
// build of one that can. Under both modes a host runs a window of image
// builds ending at its own, whose floor only rises with the host, so the
// best candidates are the builds the platforms themselves name: trying each
// of them is enough.
func (m Mode) SomeHostRuns(images [][]Platform, arch string) (Build, bool) {
	if len(images) == 1 && arch == "" {
		// One image, any architecture: a host of a build the image names
		// runs that entry, so the newest such build is the answer. The
		// common case, in one pass.
		if b := Summarize(images[0]).Newest; !b.IsZero() {
			return b, true
		}
	}
	candidates := windowsBuildsOf(images, nil)
	if len(candidates) == 0 {
		// No platform names a build: any Windows host runs every image
		// that has a Windows platform at all.
		for _, platforms := range images {
			if !hasPlatformFor(platforms, OSWindows, arch) {
				return Build{}, false
			}
		}
		return Build{}, true
	}
	counts := m.imagesRunBy(images, arch, candidates)
	for i := len(candidates) - 1; i >= 0; i-- {
		if counts[i] == len(images) {
			return candidates[i], true
		}
	}
	return Build{}, false
}

// newer reports whether a is a later build than b.
func newer(a, b Build) bool {
	if a.Major != b.Major {
		return a.Major > b.Major
	}
	if a.Minor != b.Minor {
		return a.Minor > b.Minor
	}
	return a.Number > b.Number
}
