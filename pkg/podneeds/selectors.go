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
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/pkg/windows"
)

// pinnedValues returns the values a pod's required node selector and node
// affinity allow for a label key, and whether they restrict it at all. The
// nodeSelector (into which RuntimeClass admission merges the RuntimeClass's
// selector) pins one value; required node affinity pins a set only when
// every one of its ORed terms has an In expression on the key.
func pinnedValues(pod *v1.Pod, key string) (values []string, pinned bool) {
	if v, ok := pod.Spec.NodeSelector[key]; ok {
		values, pinned = []string{v}, true
	}
	aff := pod.Spec.Affinity
	if aff == nil || aff.NodeAffinity == nil || aff.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return values, pinned
	}
	terms := aff.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	if len(terms) == 0 {
		return values, pinned
	}
	var allowed []string
	for _, t := range terms {
		inTerm := false
		for _, e := range t.MatchExpressions {
			if e.Key == key && e.Operator == v1.NodeSelectorOpIn {
				allowed = append(allowed, e.Values...)
				inTerm = true
			}
		}
		if !inTerm {
			return values, pinned // this term lets any value through
		}
	}
	if !pinned {
		return allowed, true
	}
	if slices.Contains(allowed, values[0]) {
		return values, true
	}
	return nil, true
}

// selectorSource names where a pinned label came from, for messages.
func selectorSource(pod *v1.Pod) string {
	if pod.Spec.RuntimeClassName != nil {
		return fmt.Sprintf("the pod's node selector or affinity (with RuntimeClass %q merged in)", *pod.Spec.RuntimeClassName)
	}
	return "the pod's node selector or affinity"
}

// checkOSSelector rejects a pod whose selectors pin kubernetes.io/os to
// another OS than the one it needs. because, when not "", names the images
// the OS came from (describeOSImages): a pod that selects Linux is told
// which image, of which builds, is Windows-only.
func checkOSSelector(pod *v1.Pod, os, because string) *Conflict {
	if os == "" {
		return nil
	}
	values, pinned := pinnedValues(pod, v1.LabelOSStable)
	if !pinned || slices.ContainsFunc(values, func(v string) bool { return strings.EqualFold(v, os) }) {
		return nil
	}
	msg := fmt.Sprintf("the pod needs a %s node but %s requires %s in %v", os, selectorSource(pod), v1.LabelOSStable, values)
	if because != "" {
		msg += ": " + because
	}
	return &Conflict{Kind: ConflictSelectorOS, Message: msg}
}

// checkBuildSelector rejects a pod whose selectors pin
// node.kubernetes.io/windows-build to builds that cannot run its images.
func (dr *Decider) checkBuildSelector(pod *v1.Pod, need *windows.Need, images []Image) *Conflict {
	values, pinned := pinnedValues(pod, LabelWindowsBuild)
	if !pinned {
		return nil
	}
	for _, v := range values {
		if b, ok := windows.ParseBuild(v); ok {
			host := windows.Host{OS: windows.OSWindows, Version: windows.Version{Build: b}}
			if dr.mode.Verdict(need, &host) == windows.Fits {
				return nil
			}
		}
	}
	return conflictf(ConflictSelectorBuild, "%s requires %s in %v, but %s, which no build there runs (%s compatibility)",
		selectorSource(pod), LabelWindowsBuild, values, describeImages(images), dr.mode)
}
