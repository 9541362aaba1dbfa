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

	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// fixes says what would let the pod run, when something can: for a
// conflict, what to change in the pod; when the cluster was given and no
// node fits, what the nodes lack or what of the pod keeps it off them. It
// reads the report the other steps wrote, so that it tells only what they
// found.
func (e *Explainer) fixes(t *TemplateReport) []string {
	if c := t.Conflict; c != nil {
		if fix := conflictFixes[c.Kind]; fix != "" {
			return []string{fix}
		}
		return nil
	}
	n := t.Nodes
	if n == nil || n.Fit > 0 {
		return nil
	}
	var out []string
	for _, g := range n.Groups {
		if g.MalformedBuild {
			out = append(out, fmt.Sprintf("%s: the label %s=%q is not a Windows build: correct it to the build the nodes run (like 10.0.20348)",
				poolName(g), v1.LabelWindowsBuild, g.Build))
		}
	}
	var runs, affinityOnly, tainted []NodeGroup
	for _, g := range n.Groups {
		ours := 0
		for r, n := range g.Reasons {
			if podneeds.IsFitReason(r) {
				ours += n
			}
		}
		if ours == g.Nodes {
			continue
		}
		runs = append(runs, g)
		if g.Reasons[ReasonNodeAffinity] > 0 {
			affinityOnly = append(affinityOnly, g)
		}
		if len(g.Taints) > 0 {
			tainted = append(tainted, g)
		}
	}
	switch {
	case len(runs) == 0:
		out = append(out, e.missingPool(t, n))
	case len(affinityOnly) > 0 && len(tainted) == 0:
		out = append(out, fmt.Sprintf("the pod's own nodeSelector or required node affinity excludes every node that runs it (%s): remove it or correct it; the profile places the pod by OS and build without one",
			poolNames(affinityOnly)))
	case len(tainted) > 0:
		var taints []string
		for _, g := range tainted {
			for _, taint := range g.Taints {
				if !slices.Contains(taints, taint) {
					taints = append(taints, taint)
				}
			}
		}
		out = append(out, fmt.Sprintf("every node that runs it (%s) has a taint the pod does not tolerate (%s): add a toleration for it to the pod",
			poolNames(tainted), strings.Join(taints, ", ")))
	}
	return out
}

// conflictFixes is what to change in a pod, by the kind of its conflict.
var conflictFixes = map[string]string{
	string(podneeds.ConflictOSVsImage):     "make the pod's OS (.spec.os.name, or its " + v1.LabelOSStable + " selector) and its images agree: run images built for that OS, or remove the OS the pod names",
	string(podneeds.ConflictBuildsNoHost):  "use images of one Windows release, or multi-platform images that list a build of each release",
	string(podneeds.ConflictTagTwoBuilds):  "use images of one Windows release, or multi-platform images that list a build of each release",
	string(podneeds.ConflictSelectorOS):    "remove the pod's own selector or affinity on " + v1.LabelOSStable + ": the profile places the pod by OS without one",
	string(podneeds.ConflictSelectorBuild): "remove the pod's own selector or affinity on " + v1.LabelWindowsBuild + ": the profile picks the build from the images",
	ConflictKindRuntimeClass:               "remove the pod's own nodeSelector entries that its RuntimeClass sets differently, or use another RuntimeClass",
}

// missingPool says which pool the cluster lacks for a pod that no node
// runs, and, for a Windows image whose build came from its tag, which tags
// the cluster's Windows builds would run.
func (e *Explainer) missingPool(t *TemplateReport, n *NodeReport) string {
	if t.OS != windows.OSWindows {
		if t.OS == "" {
			return "no node runs the pod's images (see the reasons above): add a pool of their architecture"
		}
		return fmt.Sprintf("no %s node runs the pod: add a %s pool of the images' architecture", t.OS, t.OS)
	}
	if t.AnyBuild || len(t.HostBuilds) == 0 {
		return "no Windows node runs the pod: add a Windows pool"
	}
	want := t.PreferredBuild
	if want == "" {
		want = t.HostBuilds[0]
	}
	fix := fmt.Sprintf("no node runs %s: add a %s pool", buildNames(t.HostBuilds, e.Releases), e.releaseTitle(want))
	var retag []string
	for _, g := range n.Groups {
		if g.OS != windows.OSWindows || g.MalformedBuild {
			continue
		}
		if name := ReleaseName(e.Releases, g.Build); name != "" && !slices.Contains(retag, name) {
			retag = append(retag, name)
		}
	}
	if len(retag) > 0 && slices.ContainsFunc(t.Images, func(i ImageReport) bool { return i.Source == string(podneeds.SourceTag) }) {
		fix += ", or retag the image for " + strings.Join(retag, " or ")
	}
	return fix
}

// releaseTitle names the release of a build as people do: Windows Server
// 2019 for an LTSC build, else the build and its token.
func (e *Explainer) releaseTitle(build string) string {
	name := ReleaseName(e.Releases, build)
	if year, ok := strings.CutPrefix(strings.ToLower(name), "ltsc"); ok {
		return "Windows Server " + year
	}
	if name != "" {
		return fmt.Sprintf("Windows %s (%s)", name, build)
	}
	return "Windows " + build
}

// poolName names a group's pool, or its platform when no pool label is set.
func poolName(g NodeGroup) string {
	if g.Pool != "" {
		return "pool " + g.Pool
	}
	return "the unpooled " + strings.TrimSpace(g.OS+" "+g.Build) + " nodes"
}

// poolNames lists the groups' pools.
func poolNames(groups []NodeGroup) string {
	names := make([]string, 0, len(groups))
	for _, g := range groups {
		if name := poolName(g); !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return strings.Join(names, ", ")
}
