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
	fwk "k8s.io/kube-scheduler/framework"
)

// TargetPod is the event resource of an update to the pending pod itself.
// The framework sends a hint registered on it only that pod's own updates.
const TargetPod = fwk.TargetPod

// IsTargetPod reports whether an update event registered on TargetPod is
// about pod, the pod being requeued: always, since Kubernetes 1.37.
func IsTargetPod(_, _ *v1.Pod) bool { return true }
