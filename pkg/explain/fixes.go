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
	"slices"
	"strings"

	"github.com/windows-aware/windows-aware/pkg/advice"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// fixes says what would let the pod run, when something can: for a
// conflict, what to change in the pod; when the cluster was given and no
// node fits, what the nodes lack or what of the pod keeps it off them. It
// reads the report the other steps wrote, so that it tells only what they
// found. The words are package advice's, which the webhook's warnings say
// too.
func (e *Explainer) fixes(t *TemplateReport) []string {
	if c := t.Conflict; c != nil {
		if fix := advice.ConflictFix(c.Kind); fix != "" {
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
			out = append(out, advice.MalformedBuildFix(poolName(g), g.Build))
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
		out = append(out, advice.AffinityFix(poolNames(affinityOnly)))
	case len(tainted) > 0:
		var taints []string
		for _, g := range tainted {
			for _, taint := range g.Taints {
				if !slices.Contains(taints, taint) {
					taints = append(taints, taint)
				}
			}
		}
		out = append(out, advice.TaintFix(poolNames(tainted), taints))
	}
	return out
}

// missingPool says which pool the cluster lacks for a pod that no node
// runs (advice.MissingPool), with the builds of the cluster's Windows
// nodes to retag for.
func (e *Explainer) missingPool(t *TemplateReport, n *NodeReport) string {
	var builds []string
	for _, g := range n.Groups {
		if g.OS == windows.OSWindows && !g.MalformedBuild {
			builds = append(builds, g.Build)
		}
	}
	need := advice.Need{OS: t.OS, AnyBuild: t.AnyBuild, HostBuilds: t.HostBuilds, PreferredBuild: t.PreferredBuild,
		FromTag: slices.ContainsFunc(t.Images, func(i ImageReport) bool { return i.Source == string(podneeds.SourceTag) })}
	return advice.MissingPool(need, e.Decider.Catalog(), builds)
}

// poolName names a group's pool, or its platform when no pool label is set.
func poolName(g NodeGroup) string { return advice.PoolName(g.Pool, g.OS, g.Build) }

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
