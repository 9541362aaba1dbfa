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
	"fmt"
	"testing"
)

// TestRunsContainerdMatrix is the process-isolation matrix of hcsshim
// osversion/platform_compat_windows.go over every release of the facts
// table, plus Windows Server 23H2 (25398) as a host.
func TestRunsContainerdMatrix(t *testing.T) {
	const (
		rs1  = 14393
		rs3  = 16299
		rs4  = 17134
		rs5  = 17763
		v19  = 18362
		v19b = 18363
		v20  = 19041
		v20b = 19042
		ws22 = 20348
		h23  = 25398
		ws25 = 26100
		next = 30000 // an LTSC after 2025, added by args
	)
	images := []uint32{rs1, rs3, rs4, rs5, v19, v19b, v20, v20b, ws22, h23, ws25, next}
	runs := map[uint32][]uint32{ // host -> the image builds it runs
		rs1:  {rs1},
		rs3:  {rs3},
		rs4:  {rs4},
		rs5:  {rs5},
		v19:  {v19},
		v19b: {v19b},
		v20:  {v20},
		v20b: {v20b},
		ws22: {ws22},
		h23:  {ws22, h23},
		ws25: {ws22, h23, ws25},
		next: {ws25, next}, // the newest LTSC strictly below is 26100
	}
	for host, want := range runs {
		for _, image := range images {
			expected := false
			for _, w := range want {
				expected = expected || w == image
			}
			t.Run(fmt.Sprintf("host %d image %d", host, image), func(t *testing.T) {
				if got := ModeContainerd.Runs(build10(host), build10(image)); got != expected {
					t.Errorf("containerd: host %d runs image %d = %v, want %v", host, image, got, expected)
				}
				if got := ModeExact.Runs(build10(host), build10(image)); got != (host == image) {
					t.Errorf("exact: host %d runs image %d = %v, want %v", host, image, got, host == image)
				}
			})
		}
	}
}

func TestRunsMajorMinor(t *testing.T) {
	if ModeContainerd.Runs(Build{6, 3, 26100}, build10(20348)) || ModeContainerd.Runs(build10(26100), Build{10, 1, 26100}) {
		t.Error("major and minor must match")
	}
}

func TestParseMode(t *testing.T) {
	for _, s := range []string{"containerd", "exact"} {
		if m, err := ParseMode(s); err != nil || string(m) != s {
			t.Errorf("ParseMode(%q) = %q, %v", s, m, err)
		}
	}
	for _, s := range []string{"", "Exact", "hyperv"} {
		if _, err := ParseMode(s); err == nil {
			t.Errorf("ParseMode(%q): want an error", s)
		}
	}
}
