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
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/windows-aware/windows-aware/pkg/workloadkind"
)

// workload is an object that creates pods from a template of its own.
type workload = workloadkind.Object

// workloadResources are the kinds whose pod templates the templates
// webhook writes (workloadkind's Templates), by their resource in the
// version its configuration asks for (matchPolicy Equivalent converts
// any other version to it).
var workloadResources = kindsByResource(func(k *workloadkind.Kind) bool { return k.Templates })

// kindsByResource indexes the kinds of the table that a webhook reads by
// their resource, as an AdmissionRequest names it.
func kindsByResource(reads func(*workloadkind.Kind) bool) map[metav1.GroupVersionResource]*workloadkind.Kind {
	m := map[metav1.GroupVersionResource]*workloadkind.Kind{}
	for _, k := range workloadkind.All {
		if reads(k) {
			m[resourceOf(k)] = k
		}
	}
	return m
}

// resourceOf is k's resource as an AdmissionRequest names it.
func resourceOf(k *workloadkind.Kind) metav1.GroupVersionResource {
	return metav1.GroupVersionResource{Group: k.Resource.Group, Version: k.Resource.Version, Resource: k.Resource.Resource}
}

// templateOf is the pod template of a workload of workloadResources.
func templateOf(w workload) *v1.PodTemplateSpec {
	if k := workloadOf(w); k != nil {
		return k.Template(w)
	}
	return nil
}

// kindOf names a workload's kind in warnings and logs.
func kindOf(w workload) string {
	if k := workloadOf(w); k != nil {
		return k.Name
	}
	return "workload"
}

// workloadOf is the kind of w, nil for a pod or an object of no kind of
// the table.
func workloadOf(w workload) *workloadkind.Kind {
	if k := workloadkind.Of(w); k != nil && k.Template != nil {
		return k
	}
	return nil
}
