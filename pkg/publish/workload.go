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
var workloadResources = byResource(func(k *workloadkind.Kind) (*workloadkind.Kind, bool) { return k, k.Templates })

// byResource indexes what a webhook reads of each kind of the table by
// the kind's resource, as an AdmissionRequest names it; read says what,
// and whether the webhook reads the kind at all.
func byResource[V any](read func(*workloadkind.Kind) (V, bool)) map[metav1.GroupVersionResource]V {
	m := map[metav1.GroupVersionResource]V{}
	for _, k := range workloadkind.All {
		if v, ok := read(k); ok {
			m[resourceOf(k)] = v
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
