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

import "strconv"

// Build is a Windows release as the kubelet publishes it in the
// node.kubernetes.io/windows-build label: Major.Minor.Build, e.g. 10.0.17763.
type Build struct {
	Major, Minor, Number uint32
}

// IsZero reports whether b names no build at all.
func (b Build) IsZero() bool { return b == Build{} }

// String formats b the way the node label spells it.
func (b Build) String() string {
	return strconv.FormatUint(uint64(b.Major), 10) + "." +
		strconv.FormatUint(uint64(b.Minor), 10) + "." +
		strconv.FormatUint(uint64(b.Number), 10)
}

// Compare orders builds: negative when b is older than o, zero when equal,
// positive when newer.
func (b Build) Compare(o Build) int {
	switch {
	case newer(b, o):
		return 1
	case newer(o, b):
		return -1
	}
	return 0
}

// Version is a Build with the revision (update level) a kernel version or a
// 10.0.<build>.<revision> tag carries. Revision is meaningful only when
// HasRevision is set.
type Version struct {
	Build
	Revision    uint32
	HasRevision bool
}

// ParseBuild parses exactly "Major.Minor.Build", the label's format. It does
// not allocate, because Filter calls it for every Windows node.
func ParseBuild(s string) (Build, bool) {
	parts, n, ok := splitNumbers(s, 3)
	if !ok || n != 3 {
		return Build{}, false
	}
	return Build{parts[0], parts[1], parts[2]}, true
}

// ParseKernelVersion reads the build, and the revision where present, from a
// Windows node's status.nodeInfo.kernelVersion ("10.0.17763.4131"). Linux
// kernel versions ("6.8.0-45-generic") do not parse.
func ParseKernelVersion(s string) (Version, bool) {
	parts, n, ok := splitNumbers(s, 4)
	if !ok || n < 3 {
		return Version{}, false
	}
	v := Version{Build: Build{parts[0], parts[1], parts[2]}}
	if n == 4 {
		v.Revision, v.HasRevision = parts[3], true
	}
	return v, true
}

// parseVersionToken reads the 10.0.<build>.<revision> spelling of an image
// tag token: exactly four numbers.
func parseVersionToken(s string) (Version, bool) {
	parts, n, ok := splitNumbers(s, 4)
	if !ok || n != 4 {
		return Version{}, false
	}
	return Version{Build: Build{parts[0], parts[1], parts[2]}, Revision: parts[3], HasRevision: true}, true
}

// splitNumbers splits s into at most max dot-separated decimal numbers that
// fit in 32 bits. It is hand-written rather than strconv-based because
// strconv allocates an error for every string that is not a number, and node
// labels are read on the hot path.
func splitNumbers(s string, max int) (parts [4]uint32, n int, ok bool) {
	if s == "" || max > len(parts) {
		return parts, 0, false
	}
	var cur uint64
	digits := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == '.' {
			if digits == 0 || n == max {
				return parts, 0, false
			}
			parts[n] = uint32(cur)
			n++
			cur, digits = 0, 0
			continue
		}
		c := s[i]
		if c < '0' || c > '9' {
			return parts, 0, false
		}
		cur = cur*10 + uint64(c-'0')
		digits++
		if cur > 1<<32-1 {
			return parts, 0, false
		}
	}
	return parts, n, true
}
