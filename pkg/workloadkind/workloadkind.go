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

// Package workloadkind is the one table of the kinds of object the
// project reads a pod template of: pods, each its own template, and the
// workloads that create pods from a template of their own. The templates
// webhook, the warnings webhook and its partial decoder, explain and
// upgrade-plan all read it, so that a kind added here is known to each of
// them at once, rather than to those whose list someone remembered. The
// chart's and manifests' webhook rules cannot read Go: the tests of
// test/chart hold them to the table.
//
// It imports the API's types alone, so that any package may read it.
package workloadkind

import (
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Object is an object of a kind of the table.
type Object interface {
	metav1.Object
	runtime.Object
}

// Kind is one row of the table: a kind, where its objects keep their pod
// template, and which of the project's parts read it.
type Kind struct {
	// Name is the kind, as an object's kind and an owner reference name
	// it.
	Name string
	// Resource is the resource in the version the project reads; the
	// webhooks' matchPolicy Equivalent converts any other to it.
	Resource schema.GroupVersionResource
	// ShortNames are the short names the API server gives the resource,
	// which kubectl takes for it as well as the kind and the resource:
	// explain reads a KIND/NAME by any of them.
	ShortNames []string
	// New is an empty object of the kind, for a decoder to fill.
	New func() Object
	// Template is the pod template of obj, an object of the kind: a
	// pointer into obj, so that what is written there is written into the
	// object. Nil for Pod, which is a pod rather than a template of one
	// (PodTemplateOf reads either).
	Template func(obj Object) *v1.PodTemplateSpec
	// TemplatePath is where the object's JSON holds the template, field
	// by field from its root: a decoder that reads a part of the object
	// alone reads it there. Empty for Pod.
	TemplatePath string
	// Owner is the kind whose controller creates objects of this kind
	// from a template of its own: that template is the one a user
	// writes, so the owner's is the one to write and to plan.
	Owner string

	// Templates: the templates webhook writes the kind's template, and
	// publish.templates.kinds may name it.
	Templates bool
	// Warnings: the warnings webhook judges an object of the kind when it
	// is created or its template changes.
	Warnings bool
	// UpgradePlan: upgrade-plan lists the kind, to plan the pods an
	// object of it owns as one workload. Pods are listed apart: they are
	// what is planned.
	UpgradePlan bool
}

// The paths at which the kinds keep their pod templates.
const (
	// SpecTemplate is the template of most workloads.
	SpecTemplate = "spec.template"
	// JobSpecTemplate is a CronJob's: the template of its Jobs'.
	JobSpecTemplate = "spec.jobTemplate.spec.template"
)

// The kinds.
var (
	Pod = &Kind{
		Name: "Pod", Resource: v1.SchemeGroupVersion.WithResource("pods"),
		ShortNames: []string{"po"},
		New:        func() Object { return &v1.Pod{} },
		Warnings:   true,
	}
	Deployment = &Kind{
		Name: "Deployment", Resource: appsv1.SchemeGroupVersion.WithResource("deployments"),
		ShortNames:   []string{"deploy"},
		New:          func() Object { return &appsv1.Deployment{} },
		Template:     func(o Object) *v1.PodTemplateSpec { return &o.(*appsv1.Deployment).Spec.Template },
		TemplatePath: SpecTemplate,
		Templates:    true, Warnings: true, UpgradePlan: true,
	}
	StatefulSet = &Kind{
		Name: "StatefulSet", Resource: appsv1.SchemeGroupVersion.WithResource("statefulsets"),
		ShortNames:   []string{"sts"},
		New:          func() Object { return &appsv1.StatefulSet{} },
		Template:     func(o Object) *v1.PodTemplateSpec { return &o.(*appsv1.StatefulSet).Spec.Template },
		TemplatePath: SpecTemplate,
		Templates:    true, Warnings: true, UpgradePlan: true,
	}
	DaemonSet = &Kind{
		Name: "DaemonSet", Resource: appsv1.SchemeGroupVersion.WithResource("daemonsets"),
		ShortNames:   []string{"ds"},
		New:          func() Object { return &appsv1.DaemonSet{} },
		Template:     func(o Object) *v1.PodTemplateSpec { return &o.(*appsv1.DaemonSet).Spec.Template },
		TemplatePath: SpecTemplate,
		Templates:    true, Warnings: true, UpgradePlan: true,
	}
	ReplicaSet = &Kind{
		Name: "ReplicaSet", Resource: appsv1.SchemeGroupVersion.WithResource("replicasets"),
		ShortNames:   []string{"rs"},
		New:          func() Object { return &appsv1.ReplicaSet{} },
		Template:     func(o Object) *v1.PodTemplateSpec { return &o.(*appsv1.ReplicaSet).Spec.Template },
		TemplatePath: SpecTemplate,
		Owner:        "Deployment",
		Templates:    true, Warnings: true, UpgradePlan: true,
	}
	Job = &Kind{
		Name: "Job", Resource: batchv1.SchemeGroupVersion.WithResource("jobs"),
		New:          func() Object { return &batchv1.Job{} },
		Template:     func(o Object) *v1.PodTemplateSpec { return &o.(*batchv1.Job).Spec.Template },
		TemplatePath: SpecTemplate,
		Owner:        "CronJob",
		Templates:    true, Warnings: true, UpgradePlan: true,
	}
	CronJob = &Kind{
		Name: "CronJob", Resource: batchv1.SchemeGroupVersion.WithResource("cronjobs"),
		ShortNames:   []string{"cj"},
		New:          func() Object { return &batchv1.CronJob{} },
		Template:     func(o Object) *v1.PodTemplateSpec { return &o.(*batchv1.CronJob).Spec.JobTemplate.Spec.Template },
		TemplatePath: JobSpecTemplate,
		Templates:    true, Warnings: true, UpgradePlan: true,
	}
)

// All is every kind, in the order the webhooks' rules name their
// resources, group by group.
var All = []*Kind{Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob}

// TemplatePointer is TemplatePath as a JSON pointer (RFC 6901), as a JSON
// patch names it: /spec/template.
func (k *Kind) TemplatePointer() string {
	return "/" + strings.ReplaceAll(k.TemplatePath, ".", "/")
}
