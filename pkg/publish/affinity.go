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
)

// requireBuilds adds "node.kubernetes.io/windows-build In builds" to every
// required node affinity term of the pod (the terms are ORed, so each must
// say it), or makes it the one term when the pod has none. A term that
// already allows only some of those builds says enough and is left alone,
// and so is an empty term, which matches no node;
// any other term gets the expression beside its own, which ANDs them, so
// that no term admits a build the scheduler rejects. It reports whether it
// added anything.
func requireBuilds(pod *v1.Pod, builds []string) bool {
	na := nodeAffinity(pod)
	if na.RequiredDuringSchedulingIgnoredDuringExecution == nil || len(na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms) == 0 {
		na.RequiredDuringSchedulingIgnoredDuringExecution = &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{
			{MatchExpressions: []v1.NodeSelectorRequirement{buildIn(builds)}},
		}}
		return true
	}
	added := false
	terms := na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	for i := range terms {
		if allowsOnly(&terms[i], builds) || emptyTerm(&terms[i]) {
			continue
		}
		terms[i].MatchExpressions = append(terms[i].MatchExpressions, buildIn(builds))
		added = true
	}
	return added
}

// preferBuild adds a preferred term for build, unless a preferred term of
// the pod already names the build label: the pod's preference stands. It
// reports whether it added the term.
func preferBuild(pod *v1.Pod, build string) bool {
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		for _, t := range a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			if slices.ContainsFunc(t.Preference.MatchExpressions, func(e v1.NodeSelectorRequirement) bool { return e.Key == v1.LabelWindowsBuild }) {
				return false
			}
		}
	}
	na := nodeAffinity(pod)
	na.PreferredDuringSchedulingIgnoredDuringExecution = append(na.PreferredDuringSchedulingIgnoredDuringExecution, v1.PreferredSchedulingTerm{
		Weight:     preferredWeight,
		Preference: v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{buildIn([]string{build})}},
	})
	return true
}

// emptyTerm reports whether the term has no requirement: it matches no
// node, so adding to it changes nothing (and the API server refuses the
// addition on a gated pod).
func emptyTerm(term *v1.NodeSelectorTerm) bool {
	return len(term.MatchExpressions) == 0 && len(term.MatchFields) == 0
}

// allowsOnly reports whether the term has an In expression on the build
// label whose values are all among builds.
func allowsOnly(term *v1.NodeSelectorTerm, builds []string) bool {
	for _, e := range term.MatchExpressions {
		if e.Key != v1.LabelWindowsBuild || e.Operator != v1.NodeSelectorOpIn {
			continue
		}
		if !slices.ContainsFunc(e.Values, func(v string) bool { return !slices.Contains(builds, v) }) {
			return true
		}
	}
	return false
}

func buildIn(builds []string) v1.NodeSelectorRequirement {
	return v1.NodeSelectorRequirement{Key: v1.LabelWindowsBuild, Operator: v1.NodeSelectorOpIn, Values: slices.Clone(builds)}
}

// nodeAffinity returns the pod's node affinity, creating it (and its
// Affinity) when absent; call it only to add to it.
func nodeAffinity(pod *v1.Pod) *v1.NodeAffinity {
	if pod.Spec.Affinity == nil {
		pod.Spec.Affinity = &v1.Affinity{}
	}
	if pod.Spec.Affinity.NodeAffinity == nil {
		pod.Spec.Affinity.NodeAffinity = &v1.NodeAffinity{}
	}
	return pod.Spec.Affinity.NodeAffinity
}
