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

import (
	"strconv"
	"strings"
)

// Runs reports whether a host of build hostBuild runs, with process
// isolation, an image made for imageBuild (both Major.Minor.Build): the
// same major and minor version; below 20348 the same build; from 20348 on,
// any build from the newest LTSC strictly below the host (20348 when there
// is none) up to the host's own.
func Runs(hostBuild, imageBuild string) bool {
	hMajor, hMinor, host, ok1 := split(hostBuild)
	iMajor, iMinor, image, ok2 := split(imageBuild)
	if !ok1 || !ok2 || hMajor != iMajor || hMinor != iMinor {
		return false
	}
	if host < 20348 {
		return host == image
	}
	floor := 20348
	if host > 26100 {
		floor = 26100
	}
	return floor <= image && image <= host
}

// split reads Major.Minor.Build, ignoring a fourth (revision) part.
func split(build string) (major, minor, number int, ok bool) {
	parts := strings.Split(build, ".")
	if len(parts) != 3 && len(parts) != 4 {
		return 0, 0, 0, false
	}
	var n [3]int
	for i := range n {
		v, err := strconv.Atoi(parts[i])
		if err != nil || v < 0 {
			return 0, 0, 0, false
		}
		n[i] = v
	}
	return n[0], n[1], n[2], true
}
