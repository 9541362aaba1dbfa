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

func TestParseOSVersion(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		want   Version
		wantOK bool
	}{
		{name: "build and revision", in: "10.0.20348.2227", want: Version{Build: Build{10, 0, 20348}, Revision: 2227, HasRevision: true}, wantOK: true},
		{name: "build only", in: "10.0.17763", want: Version{Build: Build{10, 0, 17763}}, wantOK: true},
		{name: "empty", in: ""},
		{name: "two parts", in: "10.0"},
		{name: "five parts", in: "10.0.20348.1.2"},
		{name: "all zeros would read as no version", in: "0.0.0"},
		{name: "all zeros with a revision", in: "0.0.0.5"},
		{name: "letters", in: "10.0.20348a"},
		{name: "overflow", in: "10.0.4294967296"},
		{name: "leading dot", in: ".10.0.20348"},
		{name: "linux kernel", in: "6.8.0-45-generic"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ParseOSVersion(tt.in)
			if ok != tt.wantOK || got != tt.want {
				t.Fatalf("ParseOSVersion(%q) = %+v, %v; want %+v, %v", tt.in, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestArchMatches(t *testing.T) {
	tests := []struct {
		name     string
		arch     string
		hostArch string
		want     bool
	}{
		{name: "same", arch: "amd64", hostArch: "amd64", want: true},
		{name: "case", arch: "AMD64", hostArch: "amd64", want: true},
		{name: "mismatch", arch: "arm64", hostArch: "amd64"},
		{name: "386 image on amd64 host", arch: "386", hostArch: "amd64", want: true},
		{name: "amd64 image on 386 host", arch: "amd64", hostArch: "386"},
		{name: "unknown image arch", arch: "", hostArch: "arm64", want: true},
		{name: "unknown host arch", arch: "arm64", hostArch: "", want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ArchMatches(tt.arch, tt.hostArch); got != tt.want {
				t.Fatalf("ArchMatches(%q, %q) = %v, want %v", tt.arch, tt.hostArch, got, tt.want)
			}
		})
	}
}

// TestAdmits covers the containerd cases of platform matching over the
// entries of an index, in both compatibility modes.
func TestAdmits(t *testing.T) {
	var (
		ws2019 = Build{10, 0, 17763}
		ws2022 = Build{10, 0, 20348}
		ws2025 = Build{10, 0, 26100}
		win    = func(arch string, b Build) Platform {
			return Platform{OS: OSWindows, Arch: arch, Version: Version{Build: b, Revision: 1, HasRevision: true}}
		}
		anyBuild = Platform{OS: OSWindows, Arch: "amd64"}
		linux    = Platform{OS: OSLinux, Arch: "amd64"}
		attest   = Platform{OS: "unknown", Arch: "unknown"}
	)
	tests := []struct {
		name      string
		mode      Mode
		platforms []Platform
		hostOS    string
		hostArch  string
		host      Build
		want      bool
	}{
		{name: "entry without os.version admits any build", mode: ModeContainerd, platforms: []Platform{anyBuild}, hostOS: OSWindows, hostArch: "amd64", host: ws2019, want: true},
		{name: "entry without os.version admits any build in exact mode", mode: ModeExact, platforms: []Platform{anyBuild}, hostOS: OSWindows, hostArch: "amd64", host: ws2025, want: true},
		{name: "2025 host admits 2022 entry", mode: ModeContainerd, platforms: []Platform{win("amd64", ws2022)}, hostOS: OSWindows, hostArch: "amd64", host: ws2025, want: true},
		{name: "2025 host rejects 2022 entry in exact mode", mode: ModeExact, platforms: []Platform{win("amd64", ws2022)}, hostOS: OSWindows, hostArch: "amd64", host: ws2025},
		{name: "2022 host rejects 2019 entry", mode: ModeContainerd, platforms: []Platform{win("amd64", ws2019)}, hostOS: OSWindows, hostArch: "amd64", host: ws2022},
		{name: "2019 host rejects 2022 entry", mode: ModeContainerd, platforms: []Platform{win("amd64", ws2022)}, hostOS: OSWindows, hostArch: "amd64", host: ws2019},
		{name: "some entry of a multi-build list", mode: ModeContainerd, platforms: []Platform{linux, win("amd64", ws2019), win("amd64", ws2022)}, hostOS: OSWindows, hostArch: "amd64", host: ws2022, want: true},
		{name: "arch mismatch", mode: ModeContainerd, platforms: []Platform{win("arm64", ws2022)}, hostOS: OSWindows, hostArch: "amd64", host: ws2022},
		{name: "386 on amd64", mode: ModeContainerd, platforms: []Platform{win("386", ws2022)}, hostOS: OSWindows, hostArch: "amd64", host: ws2022, want: true},
		{name: "unknown entry arch", mode: ModeContainerd, platforms: []Platform{win("", ws2022)}, hostOS: OSWindows, hostArch: "arm64", host: ws2022, want: true},
		{name: "linux entry on linux host ignores build", mode: ModeContainerd, platforms: []Platform{linux}, hostOS: OSLinux, hostArch: "amd64", want: true},
		{name: "windows-only list on linux host", mode: ModeContainerd, platforms: []Platform{win("amd64", ws2022)}, hostOS: OSLinux, hostArch: "amd64"},
		{name: "linux-only list on windows host", mode: ModeContainerd, platforms: []Platform{linux}, hostOS: OSWindows, hostArch: "amd64", host: ws2022},
		{name: "OS case folded", mode: ModeContainerd, platforms: []Platform{{OS: "Windows", Arch: "amd64"}}, hostOS: OSWindows, hostArch: "amd64", host: ws2022, want: true},
		{name: "attestation entry admits nothing", mode: ModeContainerd, platforms: []Platform{attest}, hostOS: OSWindows, hostArch: "amd64", host: ws2022},
		{name: "no platforms", mode: ModeContainerd, hostOS: OSWindows, hostArch: "amd64", host: ws2022},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.mode.Admits(tt.platforms, tt.hostOS, tt.hostArch, tt.host); got != tt.want {
				t.Fatalf("%s.Admits(%+v, %s/%s %v) = %v, want %v", tt.mode, tt.platforms, tt.hostOS, tt.hostArch, tt.host, got, tt.want)
			}
		})
	}
}
