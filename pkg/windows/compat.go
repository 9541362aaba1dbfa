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

import "fmt"

// Mode selects the rule that decides whether a host build runs an image
// build.
type Mode string

const (
	// ModeContainerd is the process-isolation rule containerd and hcsshim
	// apply (hcsshim osversion/platform_compat_windows.go, containerd
	// platforms/platform_windows_compat.go): below build 20348 the builds
	// must be equal; from 20348 on, a host runs every image from the newest
	// LTSC strictly below it up to its own build.
	ModeContainerd Mode = "containerd"
	// ModeExact requires the image build to equal the host build.
	ModeExact Mode = "exact"
)

// Builds of the Long-Term Servicing Channel releases whose hosts started
// running older images (Windows Server 2022 and 2025).
const (
	buildLTSC2022 = 20348
	buildLTSC2025 = 26100
)

// ltscFloors lists, in ascending order, the LTSC builds that bound the
// range of image builds a newer host runs.
var ltscFloors = [...]uint32{buildLTSC2022, buildLTSC2025}

// ParseMode returns the Mode named by s.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeContainerd, ModeExact:
		return m, nil
	}
	return "", fmt.Errorf("unknown compatibility mode %q (want %q or %q)", s, ModeContainerd, ModeExact)
}

// Runs reports whether a host of build host can run, with process isolation,
// a container whose image needs build image.
func (m Mode) Runs(host, image Build) bool {
	if host.Major != image.Major || host.Minor != image.Minor {
		return false
	}
	if m == ModeExact || host.Number < buildLTSC2022 {
		return host.Number == image.Number
	}
	return oldestRunnable(host.Number) <= image.Number && image.Number <= host.Number
}

// oldestRunnable is the newest LTSC build strictly below host, or 20348 when
// there is none: the oldest image build a host of 20348 or above runs.
func oldestRunnable(host uint32) uint32 {
	floor := uint32(buildLTSC2022)
	for _, ltsc := range ltscFloors {
		if ltsc < host {
			floor = ltsc
		}
	}
	return floor
}
