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
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func TestLacks(t *testing.T) {
	node := v1.ResourceList{
		v1.ResourceCPU:    resource.MustParse("4"),
		v1.ResourceMemory: resource.MustParse("8Gi"),
		v1.ResourcePods:   resource.MustParse("10"),
	}
	tests := []struct {
		name  string
		bound []*v1.Pod
		pod   *v1.Pod
		want  v1.ResourceName // "": fits
		sum   string
	}{
		{name: "empty node", pod: pod("p", "500m", "")},
		{name: "exactly full", bound: pods(7, "500m"), pod: pod("p", "500m", "")},
		{name: "one more than the CPU holds", bound: pods(8, "500m"), pod: pod("p", "500m", ""), want: v1.ResourceCPU, sum: "4500m"},
		{name: "memory", bound: []*v1.Pod{pod("a", "", "6Gi")}, pod: pod("p", "", "3Gi"), want: v1.ResourceMemory, sum: "9Gi"},
		{name: "the pod itself among the bound counts once", bound: append(pods(7, "500m"), pod("p", "500m", "")), pod: pod("p", "500m", "")},
		{name: "a pod listed twice counts once", bound: []*v1.Pod{pod("a", "3", ""), pod("a", "3", "")}, pod: pod("p", "1", "")},
		{name: "ended pods hold nothing", bound: []*v1.Pod{ended(pod("a", "4", ""), v1.PodSucceeded), ended(pod("b", "4", ""), v1.PodFailed)}, pod: pod("p", "4", "")},
		{name: "a pod the API server lists as ended, and the cache as running, holds nothing", bound: []*v1.Pod{ended(pod("a", "4", ""), v1.PodFailed), pod("a", "4", "")}, pod: pod("p", "4", "")},
		{name: "the pod count", bound: pods(10, ""), pod: pod("p", "", ""), want: v1.ResourcePods, sum: "11"},
		{name: "a resource the node does not list is not judged", pod: withRequest(pod("p", "", ""), "example.com/gpu", "1")},
		{name: "an init container's larger request", bound: pods(6, "500m"), pod: withInit(pod("p", "500m", ""), "2"), want: v1.ResourceCPU, sum: "5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Lacks(node, tt.bound, tt.pod)
			switch {
			case tt.want == "" && got != nil:
				t.Fatalf("Lacks = %s %s of %s, want the pod to fit", got.Resource, got.Requested.String(), got.Allocatable.String())
			case tt.want == "":
			case got == nil:
				t.Fatalf("the pod fits, want it to lack %s", tt.want)
			case got.Resource != tt.want || got.Requested.Cmp(resource.MustParse(tt.sum)) != 0:
				t.Fatalf("Lacks = %s %s, want %s %s", got.Resource, got.Requested.String(), tt.want, tt.sum)
			}
		})
	}
}

func pod(uid, cpu, memory string) *v1.Pod {
	requests := v1.ResourceList{}
	if cpu != "" {
		requests[v1.ResourceCPU] = resource.MustParse(cpu)
	}
	if memory != "" {
		requests[v1.ResourceMemory] = resource.MustParse(memory)
	}
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: uid, UID: types.UID(uid)},
		Spec:       v1.PodSpec{Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: requests}}}},
	}
}

func pods(n int, cpu string) []*v1.Pod {
	var out []*v1.Pod
	for i := range n {
		out = append(out, pod(fmt.Sprintf("bound-%d", i), cpu, ""))
	}
	return out
}

func ended(p *v1.Pod, phase v1.PodPhase) *v1.Pod { p.Status.Phase = phase; return p }

func withRequest(p *v1.Pod, name v1.ResourceName, q string) *v1.Pod {
	p.Spec.Containers[0].Resources.Requests[name] = resource.MustParse(q)
	return p
}

func withInit(p *v1.Pod, cpu string) *v1.Pod {
	p.Spec.InitContainers = []v1.Container{{Name: "init", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu)}}}}
	return p
}
