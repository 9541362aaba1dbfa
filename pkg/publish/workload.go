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

	"github.com/windows-aware/windows-aware/pkg/workloadkind"
)

// workload is an object that creates pods from a template of its own.
type workload = workloadkind.Object

// workloadResources are the kinds whose pod templates the templates
// webhook writes (workloadkind's Templates), by their resource in the
// version its configuration asks for (matchPolicy Equivalent converts
// any other version to it).
var workloadResources = workloadkind.ByResource(func(k *workloadkind.Kind) (*workloadkind.Kind, bool) { return k, k.Templates })

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
