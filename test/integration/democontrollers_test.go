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

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/windows-aware/windows-aware/internal/controlplane"
)

// TestDemoControllers runs make demo's control plane, with demo-controllers
// in place of kube-controller-manager, and does to it what a reader of the
// demo does: a new namespace gets its default ServiceAccount, a Deployment
// its ReplicaSet and pods, deleting the Deployment deletes them (garbage
// collection), and deleting the namespace completes.
func TestDemoControllers(t *testing.T) {
	e := ownClusterWith(t, controlplane.Options{Schedulers: 1, DemoControllers: true})
	ns := &v1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "demo-controllers-"}}
	ns, err := e.client.CoreV1().Namespaces().Create(e.ctx, ns, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	until := func(what string, done func(ctx context.Context) (bool, error)) {
		t.Helper()
		if err := wait.PollUntilContextTimeout(e.ctx, 200*time.Millisecond, time.Minute, true, done); err != nil {
			t.Fatalf("%s: not within a minute: %v", what, err)
		}
	}
	until("the namespace's default ServiceAccount", func(ctx context.Context) (bool, error) {
		_, err := e.client.CoreV1().ServiceAccounts(ns.Name).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})

	e.createDeployment(ns.Name, "web", "nginx:1.27")
	pod := e.waitDeploymentPod(ns.Name, "web")
	if len(pod.OwnerReferences) == 0 || pod.OwnerReferences[0].Kind != "ReplicaSet" {
		t.Errorf("the Deployment's pod is owned by %+v, want its ReplicaSet", pod.OwnerReferences)
	}

	background := metav1.DeletePropagationBackground
	if err := e.client.AppsV1().Deployments(ns.Name).Delete(e.ctx, "web", metav1.DeleteOptions{PropagationPolicy: &background}); err != nil {
		t.Fatal(err)
	}
	until("the deleted Deployment's ReplicaSet and pods garbage collected", func(ctx context.Context) (bool, error) {
		rs, err := e.client.AppsV1().ReplicaSets(ns.Name).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		pods, err := e.client.CoreV1().Pods(ns.Name).List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		return err == nil && len(rs.Items) == 0 && len(pods.Items) == 0, nil
	})

	if err := e.client.CoreV1().Namespaces().Delete(e.ctx, ns.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	until("the namespace deleted", func(ctx context.Context) (bool, error) {
		_, err := e.client.CoreV1().Namespaces().Get(ctx, ns.Name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
}
