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
	"context"
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/pager"

	"github.com/windows-aware/windows-aware/pkg/workloadkind"
)

// LiveSource is the Source of objects read from the cluster.
const LiveSource = "cluster"

// Cluster reads the objects explain needs from a cluster.
type Cluster struct {
	Client kubernetes.Interface
	// Namespace holds the objects named by reference.
	Namespace string
}

// getter reads one object of a kind.
type getter func(ctx context.Context, c kubernetes.Interface, ns, name string) (runtime.Object, error)

// kindGetters read an object of each kind of workloadkind's table: a
// typed client's call, which the table, of the API's types alone, cannot
// hold.
var kindGetters = map[*workloadkind.Kind]getter{
	workloadkind.Pod: func(ctx context.Context, c kubernetes.Interface, ns, name string) (runtime.Object, error) {
		return c.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
	},
	workloadkind.Deployment: func(ctx context.Context, c kubernetes.Interface, ns, name string) (runtime.Object, error) {
		return c.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
	},
	workloadkind.StatefulSet: func(ctx context.Context, c kubernetes.Interface, ns, name string) (runtime.Object, error) {
		return c.AppsV1().StatefulSets(ns).Get(ctx, name, metav1.GetOptions{})
	},
	workloadkind.DaemonSet: func(ctx context.Context, c kubernetes.Interface, ns, name string) (runtime.Object, error) {
		return c.AppsV1().DaemonSets(ns).Get(ctx, name, metav1.GetOptions{})
	},
	workloadkind.ReplicaSet: func(ctx context.Context, c kubernetes.Interface, ns, name string) (runtime.Object, error) {
		return c.AppsV1().ReplicaSets(ns).Get(ctx, name, metav1.GetOptions{})
	},
	workloadkind.Job: func(ctx context.Context, c kubernetes.Interface, ns, name string) (runtime.Object, error) {
		return c.BatchV1().Jobs(ns).Get(ctx, name, metav1.GetOptions{})
	},
	workloadkind.CronJob: func(ctx context.Context, c kubernetes.Interface, ns, name string) (runtime.Object, error) {
		return c.BatchV1().CronJobs(ns).Get(ctx, name, metav1.GetOptions{})
	},
}

// explainOnlyGetters read the two kinds with a pod template that explain
// alone reads (podTemplateOf), by every name kubectl knows them by.
var explainOnlyGetters = []struct {
	names []string
	get   getter
}{
	{[]string{"replicationcontroller", "replicationcontrollers", "rc"}, func(ctx context.Context, c kubernetes.Interface, ns, name string) (runtime.Object, error) {
		return c.CoreV1().ReplicationControllers(ns).Get(ctx, name, metav1.GetOptions{})
	}},
	{[]string{"podtemplate", "podtemplates"}, func(ctx context.Context, c kubernetes.Interface, ns, name string) (runtime.Object, error) {
		return c.CoreV1().PodTemplates(ns).Get(ctx, name, metav1.GetOptions{})
	}},
}

// getters holds the kinds with a pod template, by every name kubectl
// knows them by: a table kind by its kind, resource and short names.
// getterKinds names each kind once, for the error of a kind with none.
var getters, getterKinds = func() (map[string]getter, string) {
	m := map[string]getter{}
	var kinds []string
	add := func(get getter, names ...string) {
		if get == nil {
			return
		}
		kinds = append(kinds, names[0])
		for _, n := range names {
			m[n] = get
		}
	}
	for _, k := range workloadkind.All {
		add(kindGetters[k], append([]string{strings.ToLower(k.Name), k.Resource.Resource}, k.ShortNames...)...)
	}
	for _, k := range explainOnlyGetters {
		add(k.get, k.names...)
	}
	return m, strings.Join(kinds, ", ")
}()

// Objects reads the objects named by refs (KIND/NAME, or NAME for a pod)
// from the namespace, and with allPods every pod of it.
func (c *Cluster) Objects(ctx context.Context, refs []string, allPods bool) ([]Object, error) {
	var objects []Object
	for _, ref := range refs {
		kind, name, found := strings.Cut(ref, "/")
		if !found {
			kind, name = "pod", ref
		}
		get, ok := getters[strings.ToLower(strings.SplitN(kind, ".", 2)[0])]
		if !ok || name == "" {
			return nil, fmt.Errorf("%q: want KIND/NAME of a kind with a pod template (%s)", ref, getterKinds)
		}
		obj, err := get(ctx, c.Client, c.Namespace, name)
		if err != nil {
			return nil, err
		}
		objects = append(objects, Object{Source: LiveSource, Object: obj, Live: true})
	}
	if allPods {
		err := pager.New(func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return c.Client.CoreV1().Pods(c.Namespace).List(ctx, opts)
		}).EachListItem(ctx, metav1.ListOptions{}, func(obj runtime.Object) error {
			objects = append(objects, Object{Source: LiveSource, Object: obj, Live: true})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("listing the pods of namespace %s: %w", c.Namespace, err)
		}
	}
	return objects, nil
}

// Nodes lists the cluster's nodes, a page at a time.
func (c *Cluster) Nodes(ctx context.Context) ([]*v1.Node, error) {
	nodes := []*v1.Node{}
	err := pager.New(func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		return c.Client.CoreV1().Nodes().List(ctx, opts)
	}).EachListItem(ctx, metav1.ListOptions{}, func(obj runtime.Object) error {
		nodes = append(nodes, obj.(*v1.Node))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing nodes: %w", err)
	}
	return nodes, nil
}

// RuntimeClass reads a RuntimeClass; nil when there is none of that name.
func (c *Cluster) RuntimeClass(ctx context.Context, name string) (*nodev1.RuntimeClass, error) {
	rc, err := c.Client.NodeV1().RuntimeClasses().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return rc, err
}

// RuntimeClasses looks a RuntimeClass up among those of the input, then,
// when a cluster is given, in the cluster.
func RuntimeClasses(input map[string]*nodev1.RuntimeClass, cluster *Cluster) RuntimeClassLookup {
	return func(ctx context.Context, name string) (*nodev1.RuntimeClass, error) {
		if rc, ok := input[name]; ok {
			return rc, nil
		}
		if cluster == nil {
			return nil, nil
		}
		return cluster.RuntimeClass(ctx, name)
	}
}
