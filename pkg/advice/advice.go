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

package advice

import (
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// ConflictKindRuntimeClass: the pod's nodeSelector and its RuntimeClass's
// disagree, which RuntimeClass admission rejects.
const ConflictKindRuntimeClass = "runtime_class"

// conflictFixes is what to change in a pod, by the kind of its conflict.
var conflictFixes = map[string]string{
	string(podneeds.ConflictOSVsImage):     "make the pod's OS (.spec.os.name, or its " + v1.LabelOSStable + " selector) and its images agree: run images built for that OS, or remove the OS the pod names",
	string(podneeds.ConflictBuildsNoHost):  "use images of one Windows release, or multi-platform images that list a build of each release",
	string(podneeds.ConflictTagTwoBuilds):  "use images of one Windows release, or multi-platform images that list a build of each release",
	string(podneeds.ConflictSelectorOS):    "remove the pod's own selector or affinity on " + v1.LabelOSStable + ": the profile places the pod by OS without one",
	string(podneeds.ConflictSelectorBuild): "remove the pod's own selector or affinity on " + v1.LabelWindowsBuild + ": the profile picks the build from the images",
	ConflictKindRuntimeClass:               "remove the pod's own nodeSelector entries that its RuntimeClass sets differently, or use another RuntimeClass",
}

// ConflictFix is what to change in a pod whose conflict is of kind (one of
// podneeds.ConflictKinds, or ConflictKindRuntimeClass); "" when there is
// nothing to say, as for a registry that did not answer.
func ConflictFix(kind string) string { return conflictFixes[kind] }

// Need is what a pod that no node runs needs, as explain reports it.
type Need struct {
	// OS is linux, windows, or "" for any.
	OS string
	// AnyBuild is set when every Windows build runs the pod; HostBuilds
	// are otherwise the builds that do, oldest first, and PreferredBuild
	// the one Score ranks first ("" for the oldest).
	AnyBuild       bool
	HostBuilds     []string
	PreferredBuild string
	// FromTag is set when some image's build came from its tag: retagging
	// it is then a fix.
	FromTag bool
}

// MissingPool says which pool the cluster lacks for a pod that no node
// runs, and, for a Windows image whose build came from its tag, which tags
// the cluster's Windows builds (clusterBuilds, the well-formed builds of
// its nodes and pools, in the order to name them) would run.
func MissingPool(need Need, catalog *windows.Catalog, clusterBuilds []string) string {
	if need.OS != windows.OSWindows {
		if need.OS == "" {
			return "no node runs the pod's images (see the reasons above): add a pool of their architecture"
		}
		return fmt.Sprintf("no %s node runs the pod: add a %s pool of the images' architecture", need.OS, need.OS)
	}
	if need.AnyBuild || len(need.HostBuilds) == 0 {
		return "no Windows node runs the pod: add a Windows pool"
	}
	want := need.PreferredBuild
	if want == "" {
		want = need.HostBuilds[0]
	}
	fix := fmt.Sprintf("no node runs %s: add a %s pool", catalog.BuildNames(need.HostBuilds), ReleaseTitle(catalog, want))
	var retag []string
	for _, b := range clusterBuilds {
		if name := catalog.ReleaseName(b); name != "" && !slices.Contains(retag, name) {
			retag = append(retag, name)
		}
	}
	if len(retag) > 0 && need.FromTag {
		fix += ", or retag the image for " + strings.Join(retag, " or ")
	}
	return fix
}

// AffinityFix is the fix for a pod whose own selectors exclude every node
// that runs it, in pools.
func AffinityFix(pools string) string {
	return fmt.Sprintf("the pod's own nodeSelector or required node affinity excludes every node that runs it (%s): remove it or correct it; the profile places the pod by OS and build without one",
		pools)
}

// TaintFix is the fix for a pod that every node that runs it, in pools,
// repels by taints (key=value:effect).
func TaintFix(pools string, taints []string) string {
	return fmt.Sprintf("every node that runs it (%s) has a taint the pod does not tolerate (%s): add a toleration for it to the pod",
		pools, strings.Join(taints, ", "))
}

// MalformedBuildFix is the fix for a pool whose build label does not parse.
func MalformedBuildFix(pool, build string) string {
	return fmt.Sprintf("%s: the label %s=%q is not a Windows build: correct it to the build the nodes run (like 10.0.20348)",
		pool, v1.LabelWindowsBuild, build)
}

// PoolName names a pool, or, for nodes without a pool label, their
// platform.
func PoolName(pool, os, build string) string {
	if pool != "" {
		return "pool " + pool
	}
	return "the unpooled " + strings.TrimSpace(os+" "+build) + " nodes"
}

// ReleaseTitle names the release of a build as people do: Windows Server
// 2019 for an LTSC build, else the build and its token (catalog.ReleaseName).
func ReleaseTitle(catalog *windows.Catalog, build string) string {
	name := catalog.ReleaseName(build)
	if year, ok := windows.LTSCYear(name); ok {
		return "Windows Server " + year
	}
	if name != "" {
		return fmt.Sprintf("Windows %s (%s)", name, build)
	}
	return "Windows " + build
}
