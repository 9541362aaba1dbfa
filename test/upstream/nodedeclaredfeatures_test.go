//go:build !k8s1_35 && !k8s1_36

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

package upstream

import (
	"context"
	"fmt"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apimachinery/pkg/util/wait"
	ndf "k8s.io/component-helpers/nodedeclaredfeatures"
	ndffeatures "k8s.io/component-helpers/nodedeclaredfeatures/features"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler"
	perf "k8s.io/kubernetes/test/integration/scheduler_perf"
	"k8s.io/kubernetes/test/utils/client-go/ktesting"
)

// The nodedeclaredfeatures workloads measure the NodeDeclaredFeatures
// filter with numNodeDeclaredFeatures features that every node declares
// and that every pod with pod-level resources needs. Upstream's test file
// registers those features and writes them into the nodes' status; the
// hooks below do the same, in the harness's order: the features before
// the scheduler starts, the node status once the nodes exist.

// podLevelFeature is a node feature a pod needs when it sets pod-level
// resources; nodes declare it without discovering it.
type podLevelFeature struct{ name string }

func (f podLevelFeature) Name() string                         { return f.name }
func (podLevelFeature) Discover(*ndf.NodeConfiguration) bool   { return true }
func (podLevelFeature) Requirements() *ndf.FeatureRequirements { return nil }
func (podLevelFeature) InferForUpdate(_, _ *ndf.PodInfo) bool  { return false }
func (podLevelFeature) MaxVersion() *version.Version           { return nil }
func (podLevelFeature) InferForScheduling(pod *ndf.PodInfo) bool {
	return pod.Spec != nil && pod.Spec.Resources != nil
}

// declaredFeatures are the names of a workload's features, sorted as a
// node status lists them; none where the feature gate is off.
func declaredFeatures(w *perf.Workload) []string {
	if !w.FeatureGates[features.NodeDeclaredFeatures] {
		return nil
	}
	n, err := w.GetParam("numNodeDeclaredFeatures")
	if err != nil {
		n = 0
	}
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("Feature%d", i+1)
	}
	slices.Sort(names)
	return names
}

// registerDeclaredFeatures replaces the features the scheduler knows with
// the workload's, until the workload is done.
func registerDeclaredFeatures(_ ktesting.TContext, w *perf.Workload) (func(), error) {
	names := declaredFeatures(w)
	if names == nil {
		return nil, nil
	}
	registered := make([]ndf.Feature, len(names))
	for i, name := range names {
		registered[i] = podLevelFeature{name: name}
	}
	saved := ndffeatures.AllFeatures
	ndffeatures.AllFeatures = registered
	return func() { ndffeatures.AllFeatures = saved }, nil
}

// declareFeatures writes the workload's features into every node's status
// and waits until the scheduler's cache has them.
func declareFeatures(tCtx ktesting.TContext, sched *scheduler.Scheduler, w *perf.Workload, nodes *v1.NodeList) error {
	names := declaredFeatures(w)
	if names == nil {
		return nil
	}
	for i := range nodes.Items {
		node := nodes.Items[i].DeepCopy()
		node.Status.DeclaredFeatures = names
		if _, err := tCtx.Client().CoreV1().Nodes().UpdateStatus(tCtx, node, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("declaring the features of node %s: %w", node.Name, err)
		}
	}
	return wait.PollUntilContextTimeout(tCtx, 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		for i := range nodes.Items {
			info, err := sched.Cache.GetNode(nodes.Items[i].Name)
			if err != nil || !slices.Equal(info.Node().Status.DeclaredFeatures, names) {
				return false, nil
			}
		}
		return true, nil
	})
}
