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

package explain

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/windows-aware/windows-aware/pkg/workloadkind"
)

// Template is one pod template to explain: a Pod itself, or the template
// of a workload, as a Pod.
type Template struct {
	Source    string
	Kind      string
	Namespace string
	Name      string
	// Pod carries the template's metadata and spec.
	Pod *v1.Pod
	// Admitted is set for a Pod read from the cluster: RuntimeClass
	// admission has merged its RuntimeClass in already.
	Admitted bool
}

// Inputs sorts objects into the pod templates to explain, the
// RuntimeClasses among them (by name) and the objects of other kinds.
func Inputs(objects []Object) (templates []Template, runtimeClasses map[string]*nodev1.RuntimeClass, skipped []Skipped) {
	runtimeClasses = map[string]*nodev1.RuntimeClass{}
	for _, o := range objects {
		if rc, ok := o.Object.(*nodev1.RuntimeClass); ok {
			runtimeClasses[rc.Name] = rc
			continue
		}
		kind, meta, spec, ok := podTemplateOf(o.Object)
		if !ok {
			gvk := o.Object.GetObjectKind().GroupVersionKind()
			skipped = append(skipped, Skipped{Source: o.Source, Kind: kindName(o.Object, gvk.Kind), Name: objectName(o.Object)})
			continue
		}
		owner := objectMeta(o.Object)
		pod := &v1.Pod{ObjectMeta: *meta.DeepCopy(), Spec: *spec.DeepCopy()}
		// The pods are created in their owner's namespace, whatever the
		// template's own metadata.namespace says (nothing validates it):
		// pull secrets are read there, never in a namespace a template
		// names.
		if ns := owner.GetNamespace(); ns != "" {
			pod.Namespace = ns
		}
		templates = append(templates, Template{
			Source: o.Source, Kind: kind, Namespace: owner.GetNamespace(), Name: owner.GetName(),
			Pod: pod, Admitted: o.Live && kind == workloadkind.Pod.Name,
		})
	}
	return templates, runtimeClasses, skipped
}

// podTemplateOf returns the pod template of every kind that has one: the
// kinds of workloadkind's table, and two that explain alone reads (no
// webhook is called for them, and upgrade-plan lists neither): a
// PodTemplate, and a ReplicationController, which may leave its template
// out.
func podTemplateOf(obj runtime.Object) (kind string, meta *metav1.ObjectMeta, spec *v1.PodSpec, ok bool) {
	switch o := obj.(type) {
	case *v1.PodTemplate:
		return "PodTemplate", &o.Template.ObjectMeta, &o.Template.Spec, true
	case *v1.ReplicationController:
		if o.Spec.Template == nil {
			return "", nil, nil, false
		}
		return "ReplicationController", &o.Spec.Template.ObjectMeta, &o.Spec.Template.Spec, true
	}
	k, meta, spec := workloadkind.PodTemplateOf(obj)
	if meta == nil {
		return "", nil, nil, false
	}
	return k.Name, meta, spec, true
}

func objectMeta(obj runtime.Object) metav1.Object {
	if m, ok := obj.(metav1.Object); ok {
		return m
	}
	return &metav1.ObjectMeta{}
}

func objectName(obj runtime.Object) string { return objectMeta(obj).GetName() }

// kindName names an object's kind. Typed objects decoded by a codec lose
// their TypeMeta; the Go type's name is the kind then.
func kindName(obj runtime.Object, kind string) string {
	if kind != "" {
		return kind
	}
	t := fmt.Sprintf("%T", obj)
	return t[strings.LastIndex(t, ".")+1:]
}
