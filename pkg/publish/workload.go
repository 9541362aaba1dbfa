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
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// workload is an object that creates pods from a template of its own.
type workload interface {
	metav1.Object
	runtime.Object
}

// workloadResources are the resources whose pod templates the templates
// webhook writes, in the versions its configuration asks for
// (matchPolicy Equivalent converts any other version to these).
var workloadResources = map[metav1.GroupVersionResource]func() workload{
	{Group: "apps", Version: "v1", Resource: "daemonsets"}:   func() workload { return &appsv1.DaemonSet{} },
	{Group: "apps", Version: "v1", Resource: "deployments"}:  func() workload { return &appsv1.Deployment{} },
	{Group: "apps", Version: "v1", Resource: "statefulsets"}: func() workload { return &appsv1.StatefulSet{} },
	{Group: "apps", Version: "v1", Resource: "replicasets"}:  func() workload { return &appsv1.ReplicaSet{} },
	{Group: "batch", Version: "v1", Resource: "jobs"}:        func() workload { return &batchv1.Job{} },
	{Group: "batch", Version: "v1", Resource: "cronjobs"}:    func() workload { return &batchv1.CronJob{} },
}

// templateOf is the pod template of a workload of workloadResources.
func templateOf(w workload) *v1.PodTemplateSpec {
	switch o := w.(type) {
	case *appsv1.DaemonSet:
		return &o.Spec.Template
	case *appsv1.Deployment:
		return &o.Spec.Template
	case *appsv1.StatefulSet:
		return &o.Spec.Template
	case *appsv1.ReplicaSet:
		return &o.Spec.Template
	case *batchv1.Job:
		return &o.Spec.Template
	case *batchv1.CronJob:
		return &o.Spec.JobTemplate.Spec.Template
	}
	return nil
}

// kindOf names a workload's kind in warnings and logs.
func kindOf(w workload) string {
	switch w.(type) {
	case *appsv1.DaemonSet:
		return "DaemonSet"
	case *appsv1.Deployment:
		return "Deployment"
	case *appsv1.StatefulSet:
		return "StatefulSet"
	case *appsv1.ReplicaSet:
		return "ReplicaSet"
	case *batchv1.Job:
		return "Job"
	case *batchv1.CronJob:
		return "CronJob"
	}
	return "workload"
}
