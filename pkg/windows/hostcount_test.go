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
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// pairwiseSomeHostRuns is SomeHostRuns as it was first written: each
// candidate build tried against every platform of every image. It is the
// oracle the O(n log n) version must agree with.
func pairwiseSomeHostRuns(m Mode, images [][]Platform, arch string) (Build, bool) {
	var best Build
	found, anyBuild := false, true
	for _, platforms := range images {
		for i := range platforms {
			cand := platforms[i].Version.Build
			if cand.IsZero() || !strings.EqualFold(platforms[i].OS, OSWindows) {
				continue
			}
			anyBuild = false
			if found && !newer(cand, best) {
				continue
			}
			runsAll := true
			for _, ps := range images {
				if !m.Admits(ps, OSWindows, arch, cand) {
					runsAll = false
					break
				}
			}
			if runsAll {
				best, found = cand, true
			}
		}
	}
	if anyBuild {
		for _, platforms := range images {
			if !hasPlatformFor(platforms, OSWindows, arch) {
				return Build{}, false
			}
		}
		return Build{}, true
	}
	return best, found
}

// pairwiseHostBuilds is HostBuilds as it was first written: Fit for each
// candidate build.
func pairwiseHostBuilds(m Mode, need *Need, c *Catalog) (builds []Build, every bool) {
	every = true
	for _, b := range windowsBuildsOf(need.Images, c.hosts) {
		host := Host{OS: OSWindows, Version: Version{Build: b}, State: BuildKnown}
		if m.Verdict(need, &host) == Fits {
			builds = append(builds, b)
		} else {
			every = false
		}
	}
	return builds, every
}

// randomImages draws images from builds around the LTSC floors, with
// every corner the rules have: other majors, no os.version, other
// architectures, Linux entries.
func randomImages(rng *rand.Rand) [][]Platform {
	numbers := []uint32{14393, 17763, 20347, 20348, 20349, 22000, 25398, 26099, 26100, 26101, 30000}
	images := make([][]Platform, rng.IntN(4))
	for i := range images {
		platforms := make([]Platform, rng.IntN(6))
		for j := range platforms {
			p := Platform{OS: OSWindows, Arch: []string{"", "amd64", "arm64", "386"}[rng.IntN(4)]}
			switch rng.IntN(8) {
			case 0:
				p.OS = OSLinux
			case 1:
				p.OS = "Windows"
			case 2:
				// no os.version: any build
			case 3:
				p.Version = Version{Build: Build{Major: 6, Minor: 3, Number: numbers[rng.IntN(len(numbers))]}}
			default:
				p.Version = Version{Build: build10(numbers[rng.IntN(len(numbers))])}
			}
			platforms[j] = p
		}
		images[i] = platforms
	}
	return images
}

// TestHostDecisionsAgreeWithPairwise holds SomeHostRuns and HostBuilds to
// the pairwise definitions on random images: being faster must not change
// an answer.
func TestHostDecisionsAgreeWithPairwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 19))
	c := DefaultCatalog()
	for range 20000 {
		images := randomImages(rng)
		mode := []Mode{ModeContainerd, ModeExact}[rng.IntN(2)]
		arch := []string{"", "amd64", "arm64"}[rng.IntN(3)]
		gotBuild, gotOK := mode.SomeHostRuns(images, arch)
		wantBuild, wantOK := pairwiseSomeHostRuns(mode, images, arch)
		if gotBuild != wantBuild || gotOK != wantOK {
			t.Fatalf("%s SomeHostRuns(%v, %q) = %v, %v; pairwise %v, %v", mode, images, arch, gotBuild, gotOK, wantBuild, wantOK)
		}
		need := &Need{OS: []string{OSWindows, "", OSLinux}[rng.IntN(3)], Images: images}
		got, gotEvery := mode.HostBuilds(need, c)
		want, wantEvery := pairwiseHostBuilds(mode, need, c)
		if !slices.Equal(got, want) || gotEvery != wantEvery {
			t.Fatalf("%s HostBuilds(%+v) = %v, %v; pairwise %v, %v", mode, need, got, gotEvery, want, wantEvery)
		}
	}
}

func TestDistinctPlatforms(t *testing.T) {
	v := func(n, rev uint32) Version { return Version{Build: build10(n), Revision: rev, HasRevision: rev != 0} }
	tests := []struct {
		name string
		in   []Platform
		want []Platform
	}{
		{name: "none", in: nil, want: nil},
		{name: "nothing repeats", in: []Platform{{OS: OSLinux, Arch: "amd64"}, {OS: OSWindows, Arch: "amd64", Version: v(17763, 0)}},
			want: []Platform{{OS: OSLinux, Arch: "amd64"}, {OS: OSWindows, Arch: "amd64", Version: v(17763, 0)}}},
		{name: "a revision is not another platform", in: []Platform{{OS: OSWindows, Version: v(17763, 1)}, {OS: OSWindows, Version: v(17763, 2)}, {OS: OSWindows, Version: v(20348, 1)}},
			want: []Platform{{OS: OSWindows, Version: v(17763, 1)}, {OS: OSWindows, Version: v(20348, 1)}}},
		{name: "architectures apart", in: []Platform{{OS: OSLinux, Arch: "amd64"}, {OS: OSLinux, Arch: "arm64"}, {OS: OSLinux, Arch: "amd64"}},
			want: []Platform{{OS: OSLinux, Arch: "amd64"}, {OS: OSLinux, Arch: "arm64"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DistinctPlatforms(tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("DistinctPlatforms = %v, want %v", got, tt.want)
			}
		})
	}
}

// BenchmarkSomeHostRuns: an index at the entry limit of distinct builds
// next to a tagged image. Linear-ish in the entries: compare the sizes.
func BenchmarkSomeHostRuns(b *testing.B) {
	for _, n := range []int{4, 256, 10000} {
		index := make([]Platform, n)
		for i := range index {
			index[i] = Platform{OS: OSWindows, Arch: "amd64", Version: Version{Build: build10(20000 + uint32(i))}}
		}
		images := [][]Platform{index, tagged(20348)}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				ModeContainerd.SomeHostRuns(images, "")
			}
		})
	}
}

func BenchmarkPairwiseSomeHostRuns(b *testing.B) {
	for _, n := range []int{4, 256} {
		index := make([]Platform, n)
		for i := range index {
			index[i] = Platform{OS: OSWindows, Arch: "amd64", Version: Version{Build: build10(20000 + uint32(i))}}
		}
		images := [][]Platform{index, tagged(20348)}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				pairwiseSomeHostRuns(ModeContainerd, images, "")
			}
		})
	}
}
