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
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"

	"github.com/windows-aware/windows-aware/pkg/podneeds"
)

// nodeGroup is the nodes of one pool and platform, the platform as the
// plugin reads it.
type nodeGroup struct {
	pool     string
	platform podneeds.NodePlatform
	nodes    []*v1.Node
}

// groupKey tells node groups apart.
type groupKey struct {
	pool     string
	platform podneeds.NodePlatform
}

// groupNodes groups nodes by platform and pool: Linux first, then Windows
// by build, malformed build labels last.
func groupNodes(nodes []*v1.Node) []nodeGroup {
	index := map[groupKey]int{}
	var groups []nodeGroup
	for _, n := range nodes {
		k := groupKey{pool: PoolOf(n), platform: podneeds.PlatformOf(n)}
		i, ok := index[k]
		if !ok {
			i = len(groups)
			index[k] = i
			groups = append(groups, nodeGroup{pool: k.pool, platform: k.platform})
		}
		groups[i].nodes = append(groups[i].nodes, n)
	}
	slices.SortFunc(groups, func(a, b nodeGroup) int {
		return cmp.Or(
			cmp.Compare(a.platform.OS, b.platform.OS),
			compareBool(a.platform.MalformedBuild, b.platform.MalformedBuild),
			compareBuilds(a.platform.Build, b.platform.Build),
			cmp.Compare(a.platform.Arch, b.platform.Arch),
			cmp.Compare(a.pool, b.pool),
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
// the pod's own required node selector and affinity, then the taint rule
// (the pod's tolerations and its implicit OS toleration), in the order the
// scheduler's reasons are read by a user. Nothing else the scheduler
// checks (resources, pod affinity, ports) is looked at.
func (e *Explainer) judgeNodes(d *podneeds.Decision, pod *v1.Pod, groups []nodeGroup) *NodeReport {
	if e.Nodes == nil {
		return nil
	}
	affinity := nodeaffinity.GetRequiredNodeAffinity(pod)
	tolerations := slices.Concat(pod.Spec.Tolerations, d.OSTolerations())
	report := &NodeReport{Total: len(e.Nodes), Groups: []NodeGroup{}}
	for _, g := range groups {
		ng := NodeGroup{Pool: g.pool, OS: g.platform.OS, Build: g.platform.Build, MalformedBuild: g.platform.MalformedBuild, Arch: g.platform.Arch, Nodes: len(g.nodes)}
		for _, n := range g.nodes {
			fits, reason := d.FitNode(n)
			if fits {
				if match, _ := affinity.Match(n); !match {
					fits, reason = false, ReasonNodeAffinity
				}
			}
			if fits {
				if repels, why := d.TaintsRepel(pod, n, e.TaintComparisonOperators); repels {
					fits, reason = false, why
					if taint, found := untoleratedTaint(n, tolerations, e.TaintComparisonOperators); found && !slices.Contains(ng.Taints, taint) && len(ng.Taints) < maxTaintsShown {
						ng.Taints = append(ng.Taints, taint)
					}
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

// ReasonNodeAffinity is the stock NodeAffinity plugin's reason for a node
// that the pod's own nodeSelector or required node affinity excludes.
const ReasonNodeAffinity = "node(s) didn't match Pod's node affinity/selector"

// maxTaintsShown bounds the taints a group names: a group is one pool, whose
// nodes carry the same few taints.
const maxTaintsShown = 5

// untoleratedTaint names the first NoSchedule or NoExecute taint of the
// node that the tolerations do not tolerate, as key=value:effect.
func untoleratedTaint(node *v1.Node, tolerations []v1.Toleration, comparisonOperators bool) (string, bool) {
	taint, found := corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), node.Spec.Taints, tolerations, func(t *v1.Taint) bool {
		return t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute
	}, comparisonOperators)
	if !found {
		return "", false
	}
	return taint.ToString(), true
}
