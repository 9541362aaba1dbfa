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

package podneeds

import (
	"fmt"
	"strings"

	"github.com/windows-aware/windows-aware/pkg/windows"
)

// The words of conflict messages, which name images, builds and platforms
// so that a user can fix the pod.

func describePlatforms(images []Image) string {
	var parts []string
	for i := range images {
		if images[i].Source == SourceRegistry {
			parts = append(parts, fmt.Sprintf("image %q comes in %s", images[i].Ref, platformList(images[i].Platforms)))
		}
	}
	return strings.Join(parts, ", ")
}

// platformList spells platforms as os/arch[ build].
func platformList(platforms []windows.Platform) string {
	parts := make([]string, 0, len(platforms))
	for _, p := range platforms {
		s := p.OS
		if p.Arch != "" {
			s += "/" + p.Arch
		}
		if !p.Version.IsZero() {
			s += " " + p.Version.Build.String()
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// describeOSImages names the images the pod's OS came from, when it came
// from its images (source tag or registry): the first Windows image, at
// firstWindows, or else every image its registry listed, which share the
// OS. "" when the OS came from elsewhere.
func describeOSImages(images []Image, source Source, firstWindows int) string {
	switch {
	case source != SourceTag && source != SourceRegistry:
		return ""
	case firstWindows < 0:
		return describePlatforms(images)
	}
	in := &images[firstWindows]
	if in.Source == SourceRegistry {
		return fmt.Sprintf("image %q comes in %s", in.Ref, platformList(in.Platforms))
	}
	return fmt.Sprintf("image %q is a Windows image%s", in.Ref, describeBuild(in.Version))
}

func describeBuild(v windows.Version) string {
	if v.IsZero() {
		return ""
	}
	return fmt.Sprintf(" (build %s)", v.Build)
}

func describeImages(images []Image) string {
	parts := make([]string, len(images))
	for i, in := range images {
		parts[i] = fmt.Sprintf("image %q needs %s", in.Ref, describeBuilds(in.Platforms))
	}
	return strings.Join(parts, ", ")
}

// describeBuilds names the Windows builds of platforms: "10.0.17763", or
// "one of 10.0.17763, 10.0.20348" for a list, in the list's order.
func describeBuilds(platforms []windows.Platform) string {
	var builds []string
	seen := map[windows.Build]bool{}
	for _, p := range platforms {
		if strings.EqualFold(p.OS, windows.OSWindows) && !p.Version.IsZero() && !seen[p.Version.Build] {
			seen[p.Version.Build] = true
			builds = append(builds, p.Version.Build.String())
		}
	}
	if len(builds) == 1 {
		return builds[0]
	}
	return "one of " + strings.Join(builds, ", ")
}
