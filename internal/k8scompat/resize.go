//go:build !k8s1_35 && !k8s1_36

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

package k8scompat

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/resource"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
)

// ResizeDeferred reports whether pod waits for an in-place resize that its
// node deferred: upstream TaintToleration passes such a pod through Filter
// (preemption may make room for the resize where it is), and so does
// OSTaintToleration.
func ResizeDeferred(features feature.Features, pod *v1.Pod) bool {
	return features.EnableInPlacePodVerticalScalingSchedulerPreemption && resource.IsPodResizeDeferred(pod)
}
