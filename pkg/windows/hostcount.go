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
	"math"
	"slices"
	"sort"
	"strings"
)

// The decisions over an image's platforms (which host builds run every
// image of a pod, and which is the newest) are worked out here in
// O(n log n) of the platforms, never by trying each build against each
// platform: an image index is written by whoever pushes the image, and a
// scheduler that compared its entries pairwise would spend its time on
// the largest index it was shown.

// hostsRunning is the range of host builds, from lo to hi in Build order,
// that run image build b under m: one contiguous range of the same major
// and minor, since a host runs a window of image builds that ends at its
// own and whose floor only rises with the host.
func (m Mode) hostsRunning(b Build) (lo, hi Build) {
	if m == ModeExact || b.Number < buildLTSC2022 {
		// Below 20348 a host of 20348 or more never runs it: its floor
		// is 20348 at least.
		return b, b
	}
	// A host runs b while no LTSC floor lies strictly between b and the
	// host: up to and including the first floor above b.
	hi = Build{Major: b.Major, Minor: b.Minor, Number: math.MaxUint32}
	for _, floor := range ltscFloors {
		if floor > b.Number {
			hi.Number = floor
			break
		}
	}
	return b, hi
}

// windowsBuildsOf returns the distinct builds the Windows platforms of
// images name, any architecture, and those of extra, oldest first.
func windowsBuildsOf(images [][]Platform, extra map[Build]bool) []Build {
	n := len(extra)
	for _, platforms := range images {
		n += len(platforms)
	}
	builds := make([]Build, 0, n)
	for b := range extra {
		builds = append(builds, b)
	}
	for _, platforms := range images {
		for i := range platforms {
			if !platforms[i].Version.IsZero() && strings.EqualFold(platforms[i].OS, OSWindows) {
				builds = append(builds, platforms[i].Version.Build)
			}
		}
	}
	slices.SortFunc(builds, Build.Compare)
	return slices.Compact(builds)
}

// imagesRunBy counts, for each of hosts (sorted oldest first, distinct),
// the images of which some Windows platform of arch runs on that host
// build under m: the host runs every image when the count is
// len(images). It is Admits for each host and image, in
// O(p log p + h) for p platforms and h hosts.
func (m Mode) imagesRunBy(images [][]Platform, arch string, hosts []Build) []int {
	// diff[i] - diff[i-1] is how many images start or stop running at
	// hosts[i]: each image adds one over the hosts it runs on.
	diff := make([]int, len(hosts)+1)
	var ranges [][2]Build
	for _, platforms := range images {
		ranges = ranges[:0]
		anyBuild := false
		for i := range platforms {
			p := &platforms[i]
			if !strings.EqualFold(p.OS, OSWindows) || !ArchMatches(p.Arch, arch) {
				continue
			}
			if p.Version.IsZero() {
				anyBuild = true
				break
			}
			lo, hi := m.hostsRunning(p.Version.Build)
			ranges = append(ranges, [2]Build{lo, hi})
		}
		if anyBuild {
			diff[0]++
			diff[len(hosts)]--
			continue
		}
		// Merge the ranges, so that an image counts once per host.
		slices.SortFunc(ranges, func(a, b [2]Build) int { return a[0].Compare(b[0]) })
		merged := ranges[:0]
		for _, r := range ranges {
			if n := len(merged); n > 0 && r[0].Compare(merged[n-1][1]) <= 0 {
				if r[1].Compare(merged[n-1][1]) > 0 {
					merged[n-1][1] = r[1]
				}
				continue
			}
			merged = append(merged, r)
		}
		for _, r := range merged {
			from := sort.Search(len(hosts), func(i int) bool { return hosts[i].Compare(r[0]) >= 0 })
			to := sort.Search(len(hosts), func(i int) bool { return hosts[i].Compare(r[1]) > 0 })
			diff[from]++
			diff[to]--
		}
	}
	counts := diff[:len(hosts)]
	for i := 1; i < len(counts); i++ {
		counts[i] += counts[i-1]
	}
	return counts
}
