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
	"cmp"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/pkg/podneeds"
)

// nodeGroup is the nodes of one platform, as the plugin reads it.
type nodeGroup struct {
	platform podneeds.NodePlatform
	nodes    []*v1.Node
}

// groupNodes groups nodes by platform: Linux first, then Windows by build,
// malformed build labels last.
func groupNodes(nodes []*v1.Node) []nodeGroup {
	index := map[podneeds.NodePlatform]int{}
	var groups []nodeGroup
	for _, n := range nodes {
		p := podneeds.PlatformOf(n)
		i, ok := index[p]
		if !ok {
			i = len(groups)
			index[p] = i
			groups = append(groups, nodeGroup{platform: p})
		}
		groups[i].nodes = append(groups[i].nodes, n)
	}
	slices.SortFunc(groups, func(a, b nodeGroup) int {
		return cmp.Or(
			cmp.Compare(a.platform.OS, b.platform.OS),
			compareBool(a.platform.MalformedBuild, b.platform.MalformedBuild),
			compareBuilds(a.platform.Build, b.platform.Build),
			cmp.Compare(a.platform.Arch, b.platform.Arch),
		)
	})
	return groups
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// compareBuilds orders builds by number, where they are numbers.
func compareBuilds(a, b string) int {
	return cmp.Or(cmp.Compare(len(a), len(b)), cmp.Compare(a, b))
}

// judgeNodes asks the decision about every node: its fit rule first, then
// its OS-taint rule for the nodes that fit. Nothing else the scheduler
// checks (resources, affinity, ports) is looked at.
func (e *Explainer) judgeNodes(d *podneeds.Decision, pod *v1.Pod, groups []nodeGroup) *NodeReport {
	if e.Nodes == nil {
		return nil
	}
	report := &NodeReport{Total: len(e.Nodes), Groups: []NodeGroup{}}
	for _, g := range groups {
		ng := NodeGroup{OS: g.platform.OS, Build: g.platform.Build, MalformedBuild: g.platform.MalformedBuild, Arch: g.platform.Arch, Nodes: len(g.nodes)}
		for _, n := range g.nodes {
			fits, reason := d.FitNode(n)
			if fits {
				if repels, why := d.TaintsRepel(pod, n, e.TaintComparisonOperators); repels {
					fits, reason = false, why
				}
			}
			if fits {
				ng.Fit++
				continue
			}
			if ng.Reasons == nil {
				ng.Reasons = map[string]int{}
			}
			ng.Reasons[reason]++
		}
		report.Fit += ng.Fit
		report.Groups = append(report.Groups, ng)
	}
	return report
}
