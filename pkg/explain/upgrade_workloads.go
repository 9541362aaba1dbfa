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
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/windows-aware/windows-aware/pkg/workloadkind"
)

// WorkloadObjects are the objects of the namespaces an upgrade plan
// covers, as listed from the cluster.
type WorkloadObjects struct {
	Pods         []*v1.Pod
	Deployments  []*appsv1.Deployment
	ReplicaSets  []*appsv1.ReplicaSet
	StatefulSets []*appsv1.StatefulSet
	DaemonSets   []*appsv1.DaemonSet
	Jobs         []*batchv1.Job
	CronJobs     []*batchv1.CronJob
	// Unreadable says, by kind (Deployment, ReplicaSet…), why that kind
	// could not be listed, such as RBAC forbidding it: the pods it owns
	// are then planned as unknown, with this reason, rather than left out.
	Unreadable map[string]string
}

// Workload is one thing a user deploys: a workload whose pods share a
// template, or a bare pod.
type Workload struct {
	Kind, Namespace, Name string
	// Template is the pod template; for a bare pod, or pods whose owner
	// is gone, the pod itself (Admitted). Nil when the workload could not
	// be read: Unreadable says why.
	Template   *v1.Pod
	Admitted   bool
	Unreadable string
	// Pods are its pods, running or not.
	Pods []*v1.Pod
}

type workloadKey struct{ kind, namespace, name string }

// kindList is the objects of one kind of WorkloadObjects.
type kindList struct {
	kind    *workloadkind.Kind
	objects []runtime.Object
}

// lists are o's lists of workloads, one for each kind of workloadkind's
// table that upgrade-plan lists, in the order GroupWorkloads gives their
// workloads: by API group, an owner's kind before the kind it owns.
func (o *WorkloadObjects) lists() []kindList {
	return []kindList{
		{workloadkind.Deployment, asObjects(o.Deployments)},
		{workloadkind.StatefulSet, asObjects(o.StatefulSets)},
		{workloadkind.DaemonSet, asObjects(o.DaemonSets)},
		{workloadkind.ReplicaSet, asObjects(o.ReplicaSets)},
		{workloadkind.CronJob, asObjects(o.CronJobs)},
		{workloadkind.Job, asObjects(o.Jobs)},
	}
}

// asObjects is list as runtime.Objects.
func asObjects[T runtime.Object](list []T) []runtime.Object {
	out := make([]runtime.Object, len(list))
	for i, obj := range list {
		out[i] = obj
	}
	return out
}

// GroupWorkloads sorts pods into the workloads a user manages: a pod of a
// ReplicaSet of a Deployment belongs to the Deployment, a pod of a Job of
// a CronJob to the CronJob (the kinds' Owners in workloadkind); a
// ReplicaSet or Job with no owner is its own workload; a pod with no
// controller is a bare pod. Workloads with no pod
// are kept: their next pods are what a rollout places. Workloads come in
// the order of their kinds, then as listed; pods whose owner the lists do
// not hold follow.
func GroupWorkloads(o *WorkloadObjects) []*Workload {
	index := map[workloadKey]*Workload{}
	var out []*Workload
	add := func(obj runtime.Object) {
		kind, meta, spec, _ := podTemplateOf(obj)
		owner := objectMeta(obj)
		pod := &v1.Pod{ObjectMeta: *meta.DeepCopy(), Spec: *spec.DeepCopy()}
		pod.Namespace = owner.GetNamespace()
		w := &Workload{Kind: kind, Namespace: owner.GetNamespace(), Name: owner.GetName(), Template: pod}
		index[workloadKey{kind, w.Namespace, w.Name}] = w
		out = append(out, w)
	}
	// A workload its kind's Owner controls (a Deployment's ReplicaSet, a
	// CronJob's Job) leads to its owner; the others are workloads of
	// their own.
	parent := map[workloadKey]workloadKey{}
	for _, l := range o.lists() {
		for _, obj := range l.objects {
			m := objectMeta(obj)
			if ref := metav1.GetControllerOf(m); ref != nil && l.kind.Owner != "" && ref.Kind == l.kind.Owner {
				parent[workloadKey{l.kind.Name, m.GetNamespace(), m.GetName()}] = workloadKey{l.kind.Owner, m.GetNamespace(), ref.Name}
				continue
			}
			add(obj)
		}
	}

	for _, pod := range o.Pods {
		key := workloadKey{"Pod", pod.Namespace, pod.Name}
		unreadable := ""
		if ref := metav1.GetControllerOf(pod); ref != nil {
			key = workloadKey{ref.Kind, pod.Namespace, ref.Name}
			if reason := o.Unreadable[ref.Kind]; reason != "" {
				unreadable = reason
			} else if p, ok := parent[key]; ok {
				key = p
				unreadable = o.Unreadable[p.kind]
			}
		}
		w := index[key]
		if w == nil {
			// An owner that could not be read, or is gone, or is of a
			// kind not listed: the pod stands for it.
			w = &Workload{Kind: key.kind, Namespace: key.namespace, Name: key.name, Unreadable: unreadable}
			if unreadable == "" {
				w.Template, w.Admitted = pod, true
			}
			index[key] = w
			out = append(out, w)
		}
		w.Pods = append(w.Pods, pod)
	}
	return out
}
