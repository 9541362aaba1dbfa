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

package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"github.com/windows-aware/windows-aware/internal/controlplane"
	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/oracle"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// TestRetiringPoolDrains: a cluster moves its Windows workloads to a new
// Windows Server 2025 pool. Two Deployments run on the old pools, an
// ltsc2022 one on the 2022 nodes (its exact build) and an ltsc2019 one on
// the 2019 node. The 2025 pool is added, the old nodes are labelled
// windows-aware.x-k8s.io/retiring=true, and both Deployments are rolled:
// the ltsc2022 pods, which a 2025 host runs too, land on the new pool; the
// ltsc2019 pods, which only the retiring 2019 build runs, land on it again
// rather than wait.
func TestRetiringPoolDrains(t *testing.T) {
	e := ownClusterWith(t, controlplane.Options{Schedulers: 1, DemoControllers: true, Kwok: true})
	ns := e.namespace()
	node := func(name, build string) *v1.Node {
		return fixture.Node(name, fixture.NodeOptions{OS: "windows", Build: build, Taints: []v1.Taint{fixture.WindowsTaint}, Kwok: true})
	}
	e.createNodes(node("old22-0", oracle.Build2022), node("old22-1", oracle.Build2022), node("old19-0", oracle.Build2019))

	const webReplicas, iisReplicas = 4, 2
	e.createWindowsAwareDeployment(ns, "web", kindLTSC2022.image, webReplicas)
	e.createWindowsAwareDeployment(ns, "iis", kindLTSC2019.image, iisReplicas)
	e.waitRolledOut(ns, "web", webReplicas)
	e.waitRolledOut(ns, "iis", iisReplicas)
	if got := e.deploymentBuilds(ns, "web"); !onlyBuild(got, oracle.Build2022) {
		t.Fatalf("before the move, web's pods run on %v, want 2022 nodes alone (the exact build)", got)
	}

	e.createNodes(node("new25-0", oracle.Build2025), node("new25-1", oracle.Build2025))
	for _, name := range []string{"old22-0", "old22-1", "old19-0"} {
		if err := e.updateNode(name, false, func(n *v1.Node) { n.Labels[wellknown.LabelRetiring] = wellknown.RetiringValue }); err != nil {
			t.Fatalf("labelling node %s retiring: %v", name, err)
		}
	}
	// Let the scheduler's informer see the labels before the roll.
	time.Sleep(time.Second)
	for _, name := range []string{"web", "iis"} {
		e.restartDeployment(ns, name)
	}
	e.waitRolledOut(ns, "web", webReplicas)
	e.waitRolledOut(ns, "iis", iisReplicas)

	if got := e.deploymentBuilds(ns, "web"); !onlyBuild(got, oracle.Build2025) {
		t.Errorf("after the roll, web's pods run on %v, want the new 2025 nodes alone", got)
	}
	if got := e.deploymentBuilds(ns, "iis"); !onlyBuild(got, oracle.Build2019) || len(got[oracle.Build2019]) != iisReplicas {
		t.Errorf("after the roll, iis's pods run on %v, want the retiring 2019 node (only its build runs them)", got)
	}
}

// onlyBuild reports whether every pod is on a node of build.
func onlyBuild(byBuild map[string][]string, build string) bool {
	return len(byBuild) == 1 && len(byBuild[build]) > 0
}

// createWindowsAwareDeployment creates a Deployment of the windows-aware
// profile with no selector or toleration: the profile places its pods.
func (e *env) createWindowsAwareDeployment(ns, name, image string, replicas int32) {
	e.t.Helper()
	labels := map[string]string{"app": name}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: v1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: v1.PodSpec{SchedulerName: windowsAware, TerminationGracePeriodSeconds: ptr.To[int64](0),
					Containers: []v1.Container{{Name: name, Image: image}}},
			},
		},
	}
	if _, err := e.client.AppsV1().Deployments(ns).Create(e.ctx, d, metav1.CreateOptions{}); err != nil {
		e.t.Fatalf("creating Deployment %s/%s: %v", ns, name, err)
	}
}

// restartDeployment rolls a Deployment as kubectl rollout restart does.
func (e *env) restartDeployment(ns, name string) {
	e.t.Helper()
	patch := fmt.Sprintf(`{"spec":{"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":%q}}}}}`, time.Now().Format(time.RFC3339Nano))
	if _, err := e.client.AppsV1().Deployments(ns).Patch(e.ctx, name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		e.t.Fatalf("restarting Deployment %s/%s: %v", ns, name, err)
	}
}

// waitRolledOut waits until the Deployment's replicas are all of its
// latest template, available, and alone (the old ones gone).
func (e *env) waitRolledOut(ns, name string, replicas int32) {
	e.t.Helper()
	var last appsv1.DeploymentStatus
	err := wait.PollUntilContextTimeout(e.ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		d, err := e.client.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		last = d.Status
		if d.Status.ObservedGeneration < d.Generation || d.Status.UpdatedReplicas != replicas ||
			d.Status.Replicas != replicas || d.Status.AvailableReplicas != replicas {
			return false, nil
		}
		pods, err := e.client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=" + name})
		return err == nil && len(pods.Items) == int(replicas), nil
	})
	if err != nil {
		e.t.Fatalf("Deployment %s/%s not rolled out within 2 minutes (status %+v): %v", ns, name, last, err)
	}
}

// deploymentBuilds lists the Deployment's pods by the build of their node.
func (e *env) deploymentBuilds(ns, name string) map[string][]string {
	e.t.Helper()
	pods, err := e.client.CoreV1().Pods(ns).List(e.ctx, metav1.ListOptions{LabelSelector: "app=" + name})
	if err != nil {
		e.t.Fatal(err)
	}
	out := map[string][]string{}
	for _, p := range pods.Items {
		build := "unbound"
		if p.Spec.NodeName != "" {
			build = e.getNode(p.Spec.NodeName).Labels[v1.LabelWindowsBuild]
		}
		out[build] = append(out[build], p.Name+"@"+p.Spec.NodeName)
	}
	return out
}
