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
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/windows-aware/windows-aware/pkg/podneeds"
)

// NodePool is the nodes of one pool and platform (podneeds.PlatformOf).
type NodePool struct {
	Pool     string
	Platform podneeds.NodePlatform
	Nodes    []*v1.Node
}

// groupKey tells node groups apart.
type groupKey struct {
	pool     string
	platform podneeds.NodePlatform
}

// GroupNodes groups nodes by platform and pool: Linux first, then Windows
// by build, malformed build labels last.
func GroupNodes(nodes []*v1.Node) []NodePool {
	index := map[groupKey]int{}
	var groups []NodePool
	for _, n := range nodes {
		k := groupKey{pool: PoolOf(n), platform: podneeds.PlatformOf(n)}
		i, ok := index[k]
		if !ok {
			i = len(groups)
			index[k] = i
			groups = append(groups, NodePool{Pool: k.pool, Platform: k.platform})
		}
		groups[i].Nodes = append(groups[i].Nodes, n)
	}
	slices.SortFunc(groups, func(a, b NodePool) int {
		return cmp.Or(a.Platform.Compare(b.Platform), cmp.Compare(a.Pool, b.Pool))
	})
	return groups
}

// judgeNodes asks the decision about every node: its fit rule first, then
// the pod's own required node selector and affinity, then the taint rule
// (the pod's tolerations and its implicit OS toleration), in the order the
// scheduler's reasons are read by a user. Nothing else the scheduler
// checks (resources, pod affinity, ports) is looked at.
// podAdmits judges a node the decision runs the pod on by what the pod
// asks of it besides: its own required node affinity (which upstream's
// NodeAffinity plugin judges), then the taints it does not tolerate, the
// OS toleration the decision grants among its tolerations. It returns why
// not, and the taint that repels it.
func (e *Explainer) podAdmits(d *podneeds.Decision, pod *v1.Pod, affinity nodeaffinity.RequiredNodeAffinity, n *v1.Node) (bool, string, *v1.Taint) {
	if match, _ := affinity.Match(n); !match {
		return false, ReasonNodeAffinity, nil
	}
	if t := d.RepellingTaint(pod, n, e.TaintComparisonOperators); t != nil {
		return false, podneeds.ReasonUntoleratedTaint, t
	}
	return true, "", nil
}

func (e *Explainer) judgeNodes(d *podneeds.Decision, pod *v1.Pod, groups []NodePool) *NodeReport {
	if e.Nodes == nil {
		return nil
	}
	affinity := nodeaffinity.GetRequiredNodeAffinity(pod)
	report := &NodeReport{Total: len(e.Nodes), Groups: []NodeGroup{}}
	for _, g := range groups {
		ng := NodeGroup{Pool: g.Pool, OS: g.Platform.OS, Build: g.Platform.Build, MalformedBuild: g.Platform.MalformedBuild, Arch: g.Platform.Arch, Nodes: len(g.Nodes)}
		for _, n := range g.Nodes {
			fits, reason := d.RunsOn(n)
			if fits {
				var t *v1.Taint
				if fits, reason, t = e.podAdmits(d, pod, affinity, n); t != nil {
					if taint := t.ToString(); !slices.Contains(ng.Taints, taint) && len(ng.Taints) < maxTaintsShown {
						ng.Taints = append(ng.Taints, taint)
					}
				}
			}
			if fits {
				ng.Fit++
				if podneeds.Retiring(n) {
					ng.FitRetiring++
				}
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
