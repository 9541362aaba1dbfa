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

package noderoom

import (
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	resourcehelper "k8s.io/component-helpers/resource"
)

// Shortage is a resource the node lacks for the pod.
type Shortage struct {
	// Resource is the resource the node lacks, v1.ResourcePods for the
	// pod count.
	Resource v1.ResourceName
	// Requested is what the pods on the node and the pod request of it
	// together; Allocatable what the node offers.
	Requested, Allocatable resource.Quantity
}

// Lacks returns what the node of allocatable lacks for pod, given the
// pods bound to it (the pod itself among them or not; of a pod listed
// twice, the first copy counts), or nil when the pod fits. Pods that ended
// (Succeeded, Failed) hold nothing, as the scheduler's cache drops them.
// A resource the node does not list is not judged: the scheduler's Filter
// already refused, or allowed, it.
func Lacks(allocatable v1.ResourceList, bound []*v1.Pod, pod *v1.Pod) *Shortage {
	want := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
	names := make([]v1.ResourceName, 0, len(want))
	for name, q := range want {
		if _, listed := allocatable[name]; listed && !q.IsZero() {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	sums := make(v1.ResourceList, len(names))
	for _, name := range names {
		sums[name] = want[name].DeepCopy()
	}
	seen := make(map[types.UID]bool, len(bound)+1)
	seen[pod.UID] = true
	count := int64(1)
	for _, p := range bound {
		if p.UID != "" {
			if seen[p.UID] {
				continue
			}
			seen[p.UID] = true // the first copy of a pod is the one that counts
		}
		if p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed {
			continue
		}
		count++
		if len(names) == 0 {
			continue
		}
		requests := resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{})
		for _, name := range names {
			if q, ok := requests[name]; ok {
				sum := sums[name]
				sum.Add(q)
				sums[name] = sum
			}
		}
	}
	if max, listed := allocatable[v1.ResourcePods]; listed && count > max.Value() {
		return &Shortage{Resource: v1.ResourcePods, Requested: *resource.NewQuantity(count, resource.DecimalSI), Allocatable: max}
	}
	for _, name := range names {
		if sum := sums[name]; sum.Cmp(allocatable[name]) > 0 {
			return &Shortage{Resource: name, Requested: sum, Allocatable: allocatable[name]}
		}
	}
	return nil
}
