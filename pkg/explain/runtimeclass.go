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
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
)

// mergeRuntimeClass merges a RuntimeClass's scheduling constraints into the
// pod by the rule of Kubernetes' RuntimeClass admission plugin at the
// pod's creation (its setScheduling, which Kubernetes does not export, on
// the internal Pod type): its nodeSelector into the pod's (the error,
// admission's rejection, when they disagree on a key), its tolerations
// beside the pod's.
func mergeRuntimeClass(pod *v1.Pod, rc *nodev1.RuntimeClass) error {
	if rc.Scheduling == nil {
		return nil
	}
	selector := maps.Clone(pod.Spec.NodeSelector)
	if selector == nil {
		selector = map[string]string{}
	}
	for _, key := range slices.Sorted(maps.Keys(rc.Scheduling.NodeSelector)) {
		value := rc.Scheduling.NodeSelector[key]
		if podValue, ok := selector[key]; ok && podValue != value {
			return fmt.Errorf("conflict: runtimeClass.scheduling.nodeSelector[%s] = %s; pod.spec.nodeSelector[%s] = %s", key, value, key, podValue)
		}
		selector[key] = value
	}
	if len(selector) > 0 {
		pod.Spec.NodeSelector = selector
	}
	// Admission also drops a toleration that another one covers; for
	// scheduling, which tolerates a taint when any toleration does, the
	// union is the same.
	for _, t := range rc.Scheduling.Tolerations {
		if !slices.ContainsFunc(pod.Spec.Tolerations, func(have v1.Toleration) bool { return have.MatchToleration(&t) }) {
			pod.Spec.Tolerations = append(pod.Spec.Tolerations, t)
		}
	}
	return nil
}
