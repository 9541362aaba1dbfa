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

// tagged is the one platform an image whose tag names build n comes in.
func tagged(n uint32) []Platform {
	return []Platform{{OS: OSWindows, Version: Version{Build: build10(n)}}}
}

func winHost(n uint32) Host {
	return Host{OS: OSWindows, Arch: "amd64", Version: Version{Build: build10(n)}}
}

func TestFit(t *testing.T) {
	// A manifest list as Docker Official Images publish them.
	list := []Platform{
		{OS: OSLinux, Arch: "amd64"},
		{OS: OSLinux, Arch: "arm64"},
		{OS: OSWindows, Arch: "amd64", Version: Version{Build: build10(17763), Revision: 5329, HasRevision: true}},
		{OS: OSWindows, Arch: "amd64", Version: Version{Build: build10(20348), Revision: 2227, HasRevision: true}},
	}
	anyBuild := []Platform{{OS: OSWindows, Arch: "amd64"}}
	tests := []struct {
		name string
		mode Mode
		need Need
		host Host
		want Fit
	}{
		{name: "linux pod, linux host", need: Need{OS: OSLinux}, host: Host{OS: "linux"}, want: Fits},
		{name: "linux pod, windows host", need: Need{OS: OSLinux}, host: winHost(17763), want: WrongOS},
		{name: "OS compared in any case", need: Need{OS: OSWindows}, host: Host{OS: "Windows"}, want: Fits},
		{name: "any OS", need: Need{}, host: winHost(17763), want: Fits},
		{name: "ltsc2019 on 2019", need: Need{OS: OSWindows, Images: [][]Platform{tagged(17763)}}, host: winHost(17763), want: Fits},
		{name: "ltsc2019 on 2022", need: Need{OS: OSWindows, Images: [][]Platform{tagged(17763)}}, host: winHost(20348), want: WrongBuild},
		{name: "ltsc2022 on 2025", need: Need{OS: OSWindows, Images: [][]Platform{tagged(20348)}}, host: winHost(26100), want: Fits},
		{name: "ltsc2022 on 2025, exact mode", mode: ModeExact, need: Need{OS: OSWindows, Images: [][]Platform{tagged(20348)}}, host: winHost(26100), want: WrongBuild},
		{name: "build needed, host reports none", need: Need{OS: OSWindows, Images: [][]Platform{tagged(17763)}}, host: Host{OS: OSWindows, State: BuildMissing}, want: NoBuild},
		{name: "build needed, malformed label", need: Need{OS: OSWindows, Images: [][]Platform{tagged(17763)}}, host: Host{OS: OSWindows, State: BuildMalformed}, want: MalformedBuild},
		{name: "list: 2019 host takes the 2019 entry", need: Need{OS: OSWindows, Images: [][]Platform{list}}, host: winHost(17763), want: Fits},
		{name: "list: 2025 host runs the 2022 entry", need: Need{OS: OSWindows, Images: [][]Platform{list}}, host: winHost(26100), want: Fits},
		{name: "list: 2016 host runs no entry", need: Need{OS: OSWindows, Images: [][]Platform{list}}, host: winHost(14393), want: WrongBuild},
		{name: "list: linux entries for a linux host", need: Need{OS: OSLinux, Images: [][]Platform{list}}, host: Host{OS: OSLinux, Arch: "arm64"}, want: Fits},
		{name: "list: no linux entry for s390x", need: Need{OS: OSLinux, Images: [][]Platform{list}}, host: Host{OS: OSLinux, Arch: "s390x"}, want: WrongArch},
		{name: "entry without os.version runs on any build", need: Need{OS: OSWindows, Images: [][]Platform{anyBuild}}, host: winHost(14393), want: Fits},
		{name: "entry without os.version needs no build label", need: Need{OS: OSWindows, Images: [][]Platform{anyBuild}}, host: Host{OS: OSWindows, State: BuildMissing}, want: Fits},
		{name: "windows arm64 host, amd64-only image", need: Need{OS: OSWindows, Images: [][]Platform{list}}, host: Host{OS: OSWindows, Arch: "arm64", Version: Version{Build: build10(26100)}}, want: WrongArch},
		// A node without kubernetes.io/os is taken for a Linux node:
		// the stock scheduler places pods there, a Windows kubelet
		// never leaves its node unlabelled.
		{name: "linux pod, unlabelled host", need: Need{OS: OSLinux}, host: Host{}, want: Fits},
		{name: "any OS, unlabelled host", need: Need{}, host: Host{State: BuildMissing}, want: Fits},
		{name: "windows pod, unlabelled host", need: Need{OS: OSWindows}, host: Host{State: BuildMissing}, want: WrongOS},
		{name: "windows pod, unlabelled host of a windows build", need: Need{OS: OSWindows, Images: [][]Platform{tagged(20348)}}, host: Host{Version: Version{Build: build10(20348)}}, want: WrongOS},
		{name: "list: linux entries for an unlabelled host", need: Need{OS: OSLinux, Images: [][]Platform{list}}, host: Host{Arch: "amd64"}, want: Fits},
		{name: "every image must fit", need: Need{OS: OSWindows, Images: [][]Platform{tagged(20348), tagged(26100)}}, host: winHost(20348), want: WrongBuild},
		{name: "both images on 2025", need: Need{OS: OSWindows, Images: [][]Platform{tagged(20348), tagged(26100)}}, host: winHost(26100), want: Fits},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mode := tt.mode
			if mode == "" {
				mode = ModeContainerd
			}
			if got := mode.Verdict(&tt.need, &tt.host); got != tt.want {
				t.Errorf("Fit = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestExact(t *testing.T) {
	list := []Platform{{OS: OSWindows, Version: Version{Build: build10(17763)}}, {OS: OSWindows, Version: Version{Build: build10(20348)}}}
	tests := []struct {
		name string
		need Need
		host Host
		want bool
	}{
		{name: "ltsc2022 on 2022", need: Need{Images: [][]Platform{tagged(20348)}}, host: winHost(20348), want: true},
		{name: "ltsc2022 on 2025", need: Need{Images: [][]Platform{tagged(20348)}}, host: winHost(26100), want: false},
		{name: "ltsc2022 and ltsc2025 images on 2025", need: Need{Images: [][]Platform{tagged(20348), tagged(26100)}}, host: winHost(26100), want: true},
		{name: "list entry of the host's build", need: Need{Images: [][]Platform{list}}, host: winHost(17763), want: true},
		{name: "no build reported", need: Need{Images: [][]Platform{tagged(20348)}}, host: Host{OS: OSWindows, Version: Version{Build: build10(20348)}, State: BuildMalformed}, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.need.Exact(&tt.host); got != tt.want {
				t.Errorf("Exact = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSomeHostRuns(t *testing.T) {
	list := []Platform{{OS: OSLinux}, {OS: OSWindows, Version: Version{Build: build10(17763)}}, {OS: OSWindows, Version: Version{Build: build10(20348)}}}
	tests := []struct {
		name   string
		mode   Mode
		images [][]Platform
		want   uint32 // 0: any build
		ok     bool
	}{
		{name: "one image", mode: ModeContainerd, images: [][]Platform{tagged(17763)}, want: 17763, ok: true},
		{name: "same build twice", mode: ModeContainerd, images: [][]Platform{tagged(17763), tagged(17763)}, want: 17763, ok: true},
		{name: "2019 with 2022", mode: ModeContainerd, images: [][]Platform{tagged(17763), tagged(20348)}, ok: false},
		{name: "2022 with 2025 on a 2025 host", mode: ModeContainerd, images: [][]Platform{tagged(20348), tagged(26100)}, want: 26100, ok: true},
		{name: "order does not matter", mode: ModeContainerd, images: [][]Platform{tagged(26100), tagged(20348)}, want: 26100, ok: true},
		{name: "2022 with 2025, exact", mode: ModeExact, images: [][]Platform{tagged(20348), tagged(26100)}, ok: false},
		{name: "2016 with 2025", mode: ModeContainerd, images: [][]Platform{tagged(14393), tagged(26100)}, ok: false},
		{name: "a list with a 2019 image", mode: ModeContainerd, images: [][]Platform{list, tagged(17763)}, want: 17763, ok: true},
		{name: "a list with a 2025 image", mode: ModeContainerd, images: [][]Platform{list, tagged(26100)}, want: 26100, ok: true},
		{name: "a list with a 2016 image", mode: ModeContainerd, images: [][]Platform{list, tagged(14393)}, ok: false},
		{name: "no build named", mode: ModeContainerd, images: [][]Platform{{{OS: OSWindows}}}, want: 0, ok: true},
		{name: "a linux-only image", mode: ModeContainerd, images: [][]Platform{{{OS: OSLinux}}}, ok: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			host, ok := tt.mode.SomeHostRuns(tt.images, "amd64")
			want := Build{}
			if tt.want != 0 {
				want = build10(tt.want)
			}
			if ok != tt.ok || (ok && host != want) {
				t.Errorf("SomeHostRuns = %v, %v; want %v, %v", host, ok, want, tt.ok)
			}
		})
	}
}
