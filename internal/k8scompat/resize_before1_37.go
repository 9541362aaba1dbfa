//go:build k8s1_35 || k8s1_36

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
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
)

// ResizeDeferred is always false before Kubernetes 1.37: the scheduler did
// not yet preempt for deferred in-place resizes, and upstream TaintToleration
// filters such a pod like any other.
func ResizeDeferred(feature.Features, *v1.Pod) bool { return false }
