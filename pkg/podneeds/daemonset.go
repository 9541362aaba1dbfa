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
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DaemonSetPod reports whether a DaemonSet controls the pod. Such a pod is
// pinned to one node by its controller (a required node affinity on the
// node's name) and goes with that node: no scheduler chooses among nodes
// for it, so the profile's defaultOS does not apply to it (defaultOSOf),
// the publisher writes nothing into it, and nothing reschedules it.
func DaemonSetPod(pod *v1.Pod) bool {
	ref := metav1.GetControllerOf(pod)
	return ref != nil && ref.Kind == "DaemonSet" && (ref.APIVersion == "apps/v1" || ref.APIVersion == "extensions/v1beta1")
}
