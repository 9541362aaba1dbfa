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

package warnings

import (
	"bytes"
	"encoding/json"

	admissionv1 "k8s.io/api/admission/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/windows-aware/windows-aware/pkg/workloadkind"
)

// The warnings read a few fields of a review: decoding the whole
// AdmissionReview, then the whole object, cost the /warnings review
// nearly all its time (the judgement is a microsecond), beside the
// publish webhook's review of the same pod. These types are what the
// warnings read of a review, and encoding/json skips the rest; they keep
// encoding/json's ways (field names matched without regard to case, as
// in the full decode), so that what they read is what it read.

// warnAdmissionReview is what the warnings read of an AdmissionReview.
type warnAdmissionReview struct {
	metav1.TypeMeta `json:",inline"`
	Request         *warnRequest `json:"request"`
}

// warnRequest is what the warnings read of an AdmissionRequest.
type warnRequest struct {
	UID         types.UID                   `json:"uid"`
	Kind        metav1.GroupVersionKind     `json:"kind"`
	Resource    metav1.GroupVersionResource `json:"resource"`
	SubResource string                      `json:"subResource"`
	Name        string                      `json:"name"`
	Namespace   string                      `json:"namespace"`
	Operation   admissionv1.Operation       `json:"operation"`
	DryRun      *bool                       `json:"dryRun"`
	// Object and OldObject are nil where the review has none (null).
	Object    *warnObject `json:"object"`
	OldObject *warnObject `json:"oldObject"`
}

// warnObject is what the warnings read of a pod or a workload: one type
// for all, since a review names its resource anywhere in its request.
// The fields of a pod's spec and of a workload's spec do not overlap.
type warnObject struct {
	Metadata warnMeta       `json:"metadata"`
	Spec     warnObjectSpec `json:"spec"`
}

// warnMeta is what the warnings read of an object's metadata: its names,
// for the subject and the pod's namespace; owners and annotations, for
// the skips of a pod (one a controller made, a mirror pod).
type warnMeta struct {
	Name            string                  `json:"name"`
	GenerateName    string                  `json:"generateName"`
	Namespace       string                  `json:"namespace"`
	UID             types.UID               `json:"uid"`
	Annotations     map[string]string       `json:"annotations"`
	OwnerReferences []metav1.OwnerReference `json:"ownerReferences"`
}

// warnObjectSpec is a pod's spec, or a workload's, which holds the
// template at one of the kinds' TemplatePaths: most under template, a
// CronJob's under its job template.
type warnObjectSpec struct {
	warnPodSpec
	Template    *warnTemplate `json:"template"`
	JobTemplate *struct {
		Spec struct {
			Template *warnTemplate `json:"template"`
		} `json:"spec"`
	} `json:"jobTemplate"`
}

// warnTemplate is a workload's pod template.
type warnTemplate struct {
	Metadata warnMeta         `json:"metadata"`
	Spec     warnTemplateSpec `json:"spec"`
}

// warnTemplateSpec is a template's spec, and its text in the review: an
// update whose template's text is the old one's is skipped without a
// full decode of either.
type warnTemplateSpec struct {
	warnPodSpec
	raw []byte
}

func (s *warnTemplateSpec) UnmarshalJSON(data []byte) error {
	// data is a part of the review's body, which encoding/json asks not
	// to keep.
	s.raw = bytes.Clone(data)
	return json.Unmarshal(data, &s.warnPodSpec)
}

// warnPodSpec is what the decision and the verdict read of a pod's spec
// (podneeds, inventory.Judge), what the warnings' skips read (nodeName),
// and the pull secrets by which facts, when given, scope what they know.
type warnPodSpec struct {
	InitContainers   []warnContainer           `json:"initContainers"`
	Containers       []warnContainer           `json:"containers"`
	OS               *v1.PodOS                 `json:"os"`
	NodeSelector     map[string]string         `json:"nodeSelector"`
	Affinity         *warnAffinity             `json:"affinity"`
	Tolerations      []v1.Toleration           `json:"tolerations"`
	RuntimeClassName *string                   `json:"runtimeClassName"`
	SecurityContext  *warnSecurityContext      `json:"securityContext"`
	SchedulerName    string                    `json:"schedulerName"`
	NodeName         string                    `json:"nodeName"`
	ImagePullSecrets []v1.LocalObjectReference `json:"imagePullSecrets"`
}

type warnContainer struct {
	Name            string               `json:"name"`
	Image           string               `json:"image"`
	SecurityContext *warnSecurityContext `json:"securityContext"`
}

// warnSecurityContext is a pod's or a container's: only HostProcess is
// read.
type warnSecurityContext struct {
	WindowsOptions *v1.WindowsSecurityContextOptions `json:"windowsOptions"`
}

// warnAffinity is the pod's required node affinity: the one part of its
// affinity the decision reads (podneeds' pinnedValues).
type warnAffinity struct {
	NodeAffinity *struct {
		Required *v1.NodeSelector `json:"requiredDuringSchedulingIgnoredDuringExecution"`
	} `json:"nodeAffinity"`
}

// template is the pod template of the object, of the kind of that name,
// or the pod itself as one: its metadata and spec; nil where a workload
// has none.
func (o *warnObject) template(kind string) (*warnMeta, *warnPodSpec) {
	if kind == workloadkind.Pod.Name {
		return &o.Metadata, &o.Spec.warnPodSpec
	}
	t := o.templateAt(kind)
	if t == nil {
		return nil, nil
	}
	return &t.Metadata, &t.Spec.warnPodSpec
}

// templateSpecRaw is the text of a workload's template's spec, nil where
// it has none.
func (o *warnObject) templateSpecRaw(kind string) []byte {
	t := o.templateAt(kind)
	if t == nil {
		return nil
	}
	return t.Spec.raw
}

// templateAt is the template of a workload of the kind of that name, read
// at the kind's TemplatePath; nil where it has none, or where the path is
// none of warnObjectSpec's.
func (o *warnObject) templateAt(kind string) *warnTemplate {
	k := workloadkind.Named(kind)
	if k == nil {
		return nil
	}
	switch k.TemplatePath {
	case workloadkind.SpecTemplate:
		return o.Spec.Template
	case workloadkind.JobSpecTemplate:
		if o.Spec.JobTemplate != nil {
			return o.Spec.JobTemplate.Spec.Template
		}
	}
	return nil
}

// pod is the pod the warnings judge: the fields they read, as a full
// decode sets them.
func (m *warnMeta) pod(s *warnPodSpec) *v1.Pod {
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: m.Name, GenerateName: m.GenerateName, Namespace: m.Namespace, UID: m.UID,
			Annotations: m.Annotations, OwnerReferences: m.OwnerReferences,
		},
		Spec: v1.PodSpec{
			InitContainers:   containers(s.InitContainers),
			Containers:       containers(s.Containers),
			OS:               s.OS,
			NodeSelector:     s.NodeSelector,
			Tolerations:      s.Tolerations,
			RuntimeClassName: s.RuntimeClassName,
			SchedulerName:    s.SchedulerName,
			NodeName:         s.NodeName,
			ImagePullSecrets: s.ImagePullSecrets,
		},
	}
	if a := s.Affinity; a != nil {
		pod.Spec.Affinity = &v1.Affinity{}
		if a.NodeAffinity != nil {
			pod.Spec.Affinity.NodeAffinity = &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: a.NodeAffinity.Required}
		}
	}
	if sc := s.SecurityContext; sc != nil {
		pod.Spec.SecurityContext = &v1.PodSecurityContext{WindowsOptions: sc.WindowsOptions}
	}
	return pod
}

func containers(cs []warnContainer) []v1.Container {
	if cs == nil {
		return nil
	}
	out := make([]v1.Container, len(cs))
	for i, c := range cs {
		out[i] = v1.Container{Name: c.Name, Image: c.Image}
		if c.SecurityContext != nil {
			out[i].SecurityContext = &v1.SecurityContext{WindowsOptions: c.SecurityContext.WindowsOptions}
		}
	}
	return out
}
