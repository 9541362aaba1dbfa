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

package workloadkind

import (
	"reflect"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// byType and byName index All: an object decoded by a codec has lost its
// TypeMeta, so its Go type names its kind.
var (
	byType = map[reflect.Type]*Kind{}
	byName = map[string]*Kind{}
)

func init() {
	for _, k := range All {
		byType[reflect.TypeOf(k.New())] = k
		byName[k.Name] = k
	}
}

// Of is the kind of obj, a typed object; nil for one of no kind of the
// table.
func Of(obj runtime.Object) *Kind {
	return byType[reflect.TypeOf(obj)]
}

// Named is the kind of that name; nil for none of the table.
func Named(name string) *Kind {
	return byName[name]
}

// PodTemplateOf is the kind of obj and the metadata and spec of the pods
// it creates: a pod's own, a workload's template's, pointers into obj.
// The kind is nil for an object of no kind of the table; the metadata and
// spec are nil for a workload that holds no template.
func PodTemplateOf(obj runtime.Object) (*Kind, *metav1.ObjectMeta, *v1.PodSpec) {
	k := Of(obj)
	switch {
	case k == nil:
		return nil, nil, nil
	case k == Pod:
		pod := obj.(*v1.Pod)
		return k, &pod.ObjectMeta, &pod.Spec
	}
	t := k.Template(obj.(Object))
	if t == nil {
		return k, nil, nil
	}
	return k, &t.ObjectMeta, &t.Spec
}

// RequestResource is k's resource as an AdmissionRequest names it.
func (k *Kind) RequestResource() metav1.GroupVersionResource {
	return metav1.GroupVersionResource{Group: k.Resource.Group, Version: k.Resource.Version, Resource: k.Resource.Resource}
}

// ByResource indexes what a webhook reads of each kind of the table by
// the kind's resource, as an AdmissionRequest names it; read says what,
// and whether the webhook reads the kind at all.
func ByResource[V any](read func(*Kind) (V, bool)) map[metav1.GroupVersionResource]V {
	m := map[metav1.GroupVersionResource]V{}
	for _, k := range All {
		if v, ok := read(k); ok {
			m[k.RequestResource()] = v
		}
	}
	return m
}

// ObjectName names an object of the table in warnings and logs by its
// name and generateName: one created with generateName has no name yet,
// and is named by the prefix and a star.
func ObjectName(name, generateName string) string {
	if name != "" {
		return name
	}
	return generateName + "*"
}
