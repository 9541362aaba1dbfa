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
package explain

import (
	"fmt"
	"slices"
	"strings"

	"github.com/windows-aware/windows-aware/pkg/windows"
)

// ParseTarget reads the Windows build an upgrade moves to, as people name
// it: a year (2025), a release token of the tag table (ltsc2025, 23H2), or
// the build itself (10.0.26100). Only builds the catalog's releases know
// are targets: a build no token names has no images of its own and no
// sibling tags, and a typo (2031) must not plan an upgrade to nowhere.
func ParseTarget(s string, catalog *windows.Catalog) (windows.Build, error) {
	releases := catalog.Releases()
	want := strings.TrimSpace(s)
	if b, ok := windows.ParseBuild(want); ok {
		for _, r := range releases {
			if r.Build == b {
				return b, nil
			}
		}
	}
	for _, token := range []string{want, "ltsc" + want} {
		for _, r := range releases {
			if strings.EqualFold(r.Token, token) {
				return r.Build, nil
			}
		}
	}
	return windows.Build{}, fmt.Errorf("--to %q: no Windows release of that name or build in the tag table (known: %s); "+
		"a release that ships later is added to the scheduler's args as an extraReleases entry", s, knownTargets(catalog))
}

// knownTargets lists the catalog's LTSC releases and host-only releases,
// newest first, as a user would type them.
func knownTargets(catalog *windows.Catalog) string {
	var names []string
	for _, r := range catalog.Releases() {
		name := r.Token
		year, ltsc := windows.LTSCYear(r.Token)
		if ltsc {
			name = year
		}
		entry := fmt.Sprintf("%s (%s)", name, r.Build)
		if !slices.Contains(names, entry) && (ltsc || isHostOnly(r)) {
			names = append(names, entry)
		}
	}
	slices.Reverse(names)
	return strings.Join(names, ", ")
}

func isHostOnly(r windows.Release) bool {
	return slices.Contains(windows.HostOnlyReleases, r)
}
