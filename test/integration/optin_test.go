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
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"github.com/windows-aware/windows-aware/internal/controlplane"
	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/oracle"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// TestNamespaceOptIn runs the shipped webhook configuration (both of its
// webhooks) against a real kube-apiserver and kube-controller-manager:
//
//   - in a namespace labelled windows-aware.x-k8s.io/opt-in=true, a
//     Deployment whose template never mentions the scheduler gets pods that
//     are the windows-aware profile's, published by the second webhook
//     (which sees what the first wrote) and placed on the build their image
//     needs;
//   - there, a pod labelled opt-in=false and one that names another
//     scheduler keep theirs;
//   - in a namespace without the label, the same Deployment's pods stay the
//     stock scheduler's.
func TestNamespaceOptIn(t *testing.T) {
	e := ownClusterWith(t, controlplane.Options{Schedulers: 1, ControllerManager: true})
	optedIn, plain := e.namespace(), e.namespace()
	ns, err := e.client.CoreV1().Namespaces().Get(e.ctx, optedIn, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ns.Labels[wellknown.LabelOptIn] = "true"
	if _, err := e.client.CoreV1().Namespaces().Update(e.ctx, ns, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.createNodes(
		linuxNode("optin-linux"),
		windowsNode("optin-win-2019", oracle.Build2019, fixture.WindowsTaint),
		windowsNode("optin-win-2022", oracle.Build2022, fixture.WindowsTaint),
	)
	e.startPublishWebhook(optedIn, webhookOptions{alsoNamespaces: []string{plain}})

	for _, ns := range []string{optedIn, plain} {
		e.createDeployment(ns, "iis", "mcr.microsoft.com/windows/servercore:ltsc2019")
	}
	got := e.waitDeploymentPod(optedIn, "iis")
	if got.Spec.SchedulerName != windowsAware {
		t.Errorf("the opted-in namespace's pod has schedulerName %q, want %q", got.Spec.SchedulerName, windowsAware)
	}
	if rec, err := wellknown.ParseRecord(got.Annotations[wellknown.AnnotationPublished]); err != nil || rec.OS != "windows" {
		t.Errorf("the opted-in pod's record %+v (%v): want it published as a Windows pod", rec, err)
	}
	if node := e.waitScheduled(optedIn, got.Name, scheduleTimeout); buildOf(node) != oracle.Build2019 {
		t.Errorf("the opted-in ltsc2019 pod landed on %s (%s %s)", node.Name, osOf(node), buildOf(node))
	}
	if other := e.waitDeploymentPod(plain, "iis"); other.Spec.SchedulerName != v1.DefaultSchedulerName {
		t.Errorf("the plain namespace's pod has schedulerName %q, want %q", other.Spec.SchedulerName, v1.DefaultSchedulerName)
	}

	optedOut := newPod("opted-out", "", "mcr.microsoft.com/windows/servercore:ltsc2019")
	optedOut.Labels[wellknown.LabelOptIn] = "false"
	gpu := newPod("gpu", "gpu-scheduler", "mcr.microsoft.com/windows/servercore:ltsc2019")
	for _, p := range []*v1.Pod{optedOut, gpu} {
		want := p.Spec.SchedulerName
		if want == "" {
			want = v1.DefaultSchedulerName
		}
		if created := e.createPod(optedIn, p); created.Spec.SchedulerName != want {
			t.Errorf("pod %s has schedulerName %q, want %q", p.Name, created.Spec.SchedulerName, want)
		}
	}
}

// createDeployment creates a one-replica Deployment whose template names
// no scheduler and no node selection: what a third-party chart ships.
func (e *env) createDeployment(ns, name, image string) {
	e.t.Helper()
	labels := map[string]string{"app": name}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: v1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       v1.PodSpec{Containers: []v1.Container{{Name: name, Image: image}}},
			},
		},
	}
	if _, err := e.client.AppsV1().Deployments(ns).Create(e.ctx, d, metav1.CreateOptions{}); err != nil {
		e.t.Fatalf("creating Deployment %s/%s: %v", ns, name, err)
	}
}

// waitDeploymentPod waits for the pod of the Deployment app=name in ns.
func (e *env) waitDeploymentPod(ns, name string) *v1.Pod {
	e.t.Helper()
	var pod *v1.Pod
	err := wait.PollUntilContextTimeout(e.ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		pods, err := e.client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=" + name})
		if err != nil || len(pods.Items) == 0 {
			return false, nil
		}
		pod = &pods.Items[0]
		return true, nil
	})
	if err != nil {
		e.t.Fatalf("no pod of Deployment %s/%s within a minute: %v", ns, name, err)
	}
	return pod
}

// TestOptInFollowsTheScheduler runs the publish webhook with
// --scheduler-lease against a real API server: in a namespace that opts
// in, a pod that names no scheduler becomes the profile's while the Lease
// is renewed, keeps the stock scheduler once it has aged past twice its
// duration or is gone, and becomes the profile's again when a replica
// renews it. The webhook reads the Lease from an informer: the test waits
// for each change to reach it, never more than a few seconds.
func TestOptInFollowsTheScheduler(t *testing.T) {
	e := requireCluster(t)
	ns := e.namespace()
	e.labelNamespace(ns, "true")
	leases := e.client.CoordinationV1().Leases(ns)
	renewed := func(at time.Time) *coordinationv1.Lease {
		return &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: "scheduler", Namespace: ns},
			Spec: coordinationv1.LeaseSpec{
				HolderIdentity:       ptr.To("scheduler-0"),
				LeaseDurationSeconds: ptr.To[int32](15),
				RenewTime:            ptr.To(metav1.NewMicroTime(at)),
			},
		}
	}
	if _, err := leases.Create(e.ctx, renewed(time.Now()), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.startPublishWebhook(ns, webhookOptions{args: []string{"--scheduler-lease=" + ns + "/scheduler"}})

	// schedulerOf is the scheduler a pod that names none gets at creation
	// (a dry run: the webhooks run, nothing is stored).
	schedulerOf := func() string {
		p := newPod("probe", "", "mcr.microsoft.com/windows/servercore:ltsc2019")
		got, err := e.client.CoreV1().Pods(ns).Create(e.ctx, p, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			t.Fatal(err)
		}
		return got.Spec.SchedulerName
	}
	waitScheduler := func(step, want string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			got := schedulerOf()
			if got == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: a new pod gets schedulerName %q, want %q", step, got, want)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	update := func(lease *coordinationv1.Lease) {
		t.Helper()
		live, err := leases.Get(e.ctx, lease.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		live.Spec = lease.Spec
		if _, err := leases.Update(e.ctx, live, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	waitScheduler("the Lease renewed", windowsAware)
	update(renewed(time.Now().Add(-2 * time.Minute)))
	waitScheduler("the Lease two minutes old", v1.DefaultSchedulerName)
	update(renewed(time.Now()))
	waitScheduler("the Lease renewed again", windowsAware)
	if err := leases.Delete(e.ctx, "scheduler", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitScheduler("the Lease deleted", v1.DefaultSchedulerName)
}
