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

package publish

import (
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// stayingWeight is the weight of the preferred term for the nodes that are
// not retiring. The profile's Score ranks staying above the exact build,
// and no weight passes 100, so it equals preferredWeight: an exact build
// that is retiring and a compatible one that stays tie on the published
// terms (the scheduler's own Score breaks the tie toward staying), and
// both beat a compatible build that is retiring.
const stayingWeight = 100

// movable reports whether a Windows pod may run on more than one Windows
// build, so that retiring nodes need not keep it: publish mode then
// prefers the nodes that are not retiring (podneeds.Retiring false), which
// the WindowsAware plugin's Score ranks first too, and autoscalers
// grow the pools that stay. That is a pod that runs on every build, or one
// that just got the preferred build term (more than one build runs its
// images; a pod with a build preference of its own keeps its preferences
// as they are). A pod only one build runs gets no such term: where that
// build is retiring, its nodes are its only place. HostProcess pods, which
// DaemonSets run on every node, are left alone.
func movable(d *podneeds.Decision, rec *wellknown.Record) bool {
	if d.OS() != windows.OSWindows || d.HostProcess() {
		return false
	}
	if rec.Preferred != "" {
		return true
	}
	_, every := d.HostBuilds()
	return every
}

// preferStaying adds a preferred term for the nodes that are not retiring
// (wellknown.LabelRetiring NotIn [true], which a node without the label
// matches), unless a preferred term of the pod already names that label:
// the pod's preference stands. It reports whether it added the term.
func preferStaying(pod *v1.Pod) bool {
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		for _, t := range a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			if slices.ContainsFunc(t.Preference.MatchExpressions, func(e v1.NodeSelectorRequirement) bool { return e.Key == wellknown.LabelRetiring }) {
				return false
			}
		}
	}
	na := nodeAffinity(pod)
	na.PreferredDuringSchedulingIgnoredDuringExecution = append(na.PreferredDuringSchedulingIgnoredDuringExecution, v1.PreferredSchedulingTerm{
		Weight: stayingWeight,
		Preference: v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{
			{Key: wellknown.LabelRetiring, Operator: v1.NodeSelectorOpNotIn, Values: []string{wellknown.RetiringValue}},
		}},
	})
	return true
}
