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
package kubectlcmd

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/pager"

	"github.com/windows-aware/windows-aware/pkg/explain"
	"github.com/windows-aware/windows-aware/pkg/workloadkind"
)

// workloadLists are the kinds upgrade-plan lists besides pods
// (workloadkind's UpgradePlan), each with the call that lists it: a kind
// the user may not list is planned as unknown, with the reason, from the
// pods it owns.
var workloadLists = []struct {
	kind *workloadkind.Kind
	list func(ctx context.Context, c kubernetes.Interface, ns string, o *explain.WorkloadObjects) error
}{
	{workloadkind.Deployment, func(ctx context.Context, c kubernetes.Interface, ns string, o *explain.WorkloadObjects) error {
		return each(ctx, func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return c.AppsV1().Deployments(ns).List(ctx, opts)
		}, func(obj runtime.Object) { o.Deployments = append(o.Deployments, obj.(*appsv1.Deployment)) })
	}},
	{workloadkind.ReplicaSet, func(ctx context.Context, c kubernetes.Interface, ns string, o *explain.WorkloadObjects) error {
		return each(ctx, func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return c.AppsV1().ReplicaSets(ns).List(ctx, opts)
		}, func(obj runtime.Object) { o.ReplicaSets = append(o.ReplicaSets, obj.(*appsv1.ReplicaSet)) })
	}},
	{workloadkind.StatefulSet, func(ctx context.Context, c kubernetes.Interface, ns string, o *explain.WorkloadObjects) error {
		return each(ctx, func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return c.AppsV1().StatefulSets(ns).List(ctx, opts)
		}, func(obj runtime.Object) { o.StatefulSets = append(o.StatefulSets, obj.(*appsv1.StatefulSet)) })
	}},
	{workloadkind.DaemonSet, func(ctx context.Context, c kubernetes.Interface, ns string, o *explain.WorkloadObjects) error {
		return each(ctx, func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return c.AppsV1().DaemonSets(ns).List(ctx, opts)
		}, func(obj runtime.Object) { o.DaemonSets = append(o.DaemonSets, obj.(*appsv1.DaemonSet)) })
	}},
	{workloadkind.Job, func(ctx context.Context, c kubernetes.Interface, ns string, o *explain.WorkloadObjects) error {
		return each(ctx, func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return c.BatchV1().Jobs(ns).List(ctx, opts)
		}, func(obj runtime.Object) { o.Jobs = append(o.Jobs, obj.(*batchv1.Job)) })
	}},
	{workloadkind.CronJob, func(ctx context.Context, c kubernetes.Interface, ns string, o *explain.WorkloadObjects) error {
		return each(ctx, func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return c.BatchV1().CronJobs(ns).List(ctx, opts)
		}, func(obj runtime.Object) { o.CronJobs = append(o.CronJobs, obj.(*batchv1.CronJob)) })
	}},
}

// each lists a page at a time, calling add for every item.
func each(ctx context.Context, list pager.ListPageFunc, add func(runtime.Object)) error {
	return pager.New(list).EachListItem(ctx, metav1.ListOptions{}, func(obj runtime.Object) error {
		add(obj)
		return nil
	})
}

// readWorkloads lists the pods and the workloads of namespace ns (every
// namespace for ""). Pods are needed: without them nothing can be
// planned, and the error says so. A workload kind RBAC forbids is noted
// in Unreadable, so that its pods are planned as unknown with the reason.
func readWorkloads(ctx context.Context, c kubernetes.Interface, ns string) (*explain.WorkloadObjects, error) {
	o := &explain.WorkloadObjects{Unreadable: map[string]string{}}
	where := "namespace " + ns
	if ns == metav1.NamespaceAll {
		where = "all namespaces"
	}
	err := each(ctx, func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		return c.CoreV1().Pods(ns).List(ctx, opts)
	}, func(obj runtime.Object) { o.Pods = append(o.Pods, obj.(*v1.Pod)) })
	if err != nil {
		return nil, fmt.Errorf("listing the pods of %s: %w (upgrade-plan needs to list pods, and the workloads that own them, in the namespaces it plans; "+
			"kubectl auth can-i list pods%s says whether you may)", where, err, canINamespace(ns))
	}
	for _, l := range workloadLists {
		err := l.list(ctx, c, ns, o)
		// The resource as RBAC names it: deployments.apps.
		resource := l.kind.Resource.GroupResource().String()
		switch {
		case err == nil:
		case apierrors.IsForbidden(err):
			o.Unreadable[l.kind.Name] = fmt.Sprintf("its %s cannot be read: you may not list %s in %s (RBAC)", l.kind.Name, resource, where)
		default:
			return nil, fmt.Errorf("listing the %s of %s: %w", resource, where, err)
		}
	}
	return o, nil
}

func canINamespace(ns string) string {
	if ns == metav1.NamespaceAll {
		return " -A"
	}
	return " -n " + ns
}
