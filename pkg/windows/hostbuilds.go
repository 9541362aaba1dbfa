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
	"maps"
	"slices"
	"strings"
)

// Builds lists every build some token of the catalog names (the release
// table, its servicing names and the administrator's extra releases),
// oldest first: the host builds a cluster can be expected to run.
func (c *Catalog) Builds() []Build {
	return slices.SortedFunc(maps.Keys(c.builds), Build.Compare)
}

// Hosts lists every build a host may carry, oldest first: the catalog's
// builds and those of the HostOnlyReleases.
func (c *Catalog) Hosts() []Build {
	return slices.SortedFunc(maps.Keys(c.hosts), Build.Compare)
}

// HostBuilds lists, oldest first, the Windows host builds that run need,
// by Fit: the builds a host may carry (Hosts: the catalog's, and the
// host-only releases', such as a 23H2 host that runs ltsc2022 images), and
// the builds need's own images name (an Insider image's build is in no
// release table, yet a host of that build runs it). every is set when each
// of those builds runs need, as it does when need constrains no build: then
// no list of builds says more than "Windows".
func (m Mode) HostBuilds(need *Need, c *Catalog) (builds []Build, every bool) {
	candidates := windowsBuildsOf(need.Images, c.hosts)
	if need.OS != "" && !strings.EqualFold(need.OS, OSWindows) {
		// Fit says WrongOS for every Windows host.
		return nil, len(candidates) == 0
	}
	counts := m.imagesRunBy(need.Images, "", candidates)
	for i, b := range candidates {
		if counts[i] == len(need.Images) {
			builds = append(builds, b)
		}
	}
	return builds, len(builds) == len(candidates)
}
