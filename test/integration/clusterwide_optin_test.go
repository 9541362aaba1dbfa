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
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/windows-aware/windows-aware/internal/controlplane"
	"github.com/windows-aware/windows-aware/internal/oracle"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// TestClusterWideOptIn runs the shipped configuration of
// manifests/publish/cluster-wide against a real kube-apiserver and
// kube-controller-manager, with an untainted Windows node where the stock
// scheduler may place a Linux pod:
//
//   - in a namespace nobody labelled, a third-party Deployment's pods
//     become the windows-aware profile's, are published as Linux pods and
//     land on Linux, and the Deployment's template says kubernetes.io/os:
//     linux;
//   - there, a pod labelled opt-in=false keeps its scheduler;
//   - kube-system, and a namespace labelled opt-in=false, are left alone:
//     their Deployments' pods keep the stock scheduler, their templates are
//     not written.
func TestClusterWideOptIn(t *testing.T) {
	e := ownClusterWith(t, controlplane.Options{Schedulers: 1, ControllerManager: true})
	plain, optedOut := e.namespace(), e.namespace()
	e.labelNamespace(optedOut, "false")
	e.createNodes(
		linuxNode("cw-linux"),
		windowsNode("cw-win-2022", oracle.Build2022), // untainted
	)
	e.startTemplatesWebhook("cluster-wide", plain, optedOut, metav1.NamespaceSystem)
	e.waitWebhookCalled(plain, windowsAware)

	for _, ns := range []string{plain, optedOut, metav1.NamespaceSystem} {
		e.createDeployment(ns, "exporter", "quay.io/prometheus/node-exporter:v1.8.2")
	}
	got := e.waitDeploymentPod(plain, "exporter")
	if got.Spec.SchedulerName != windowsAware {
		t.Errorf("the unlabelled namespace's pod has schedulerName %q, want %q", got.Spec.SchedulerName, windowsAware)
	}
	// The template carries the OS already (the templates webhook wrote
	// it), so publishing finds it there and adds the tolerations.
	if rec, err := wellknown.ParseRecord(got.Annotations[wellknown.AnnotationPublished]); err != nil || got.Spec.NodeSelector[v1.LabelOSStable] != "linux" {
		t.Errorf("the pod's selector %v, record %+v (%v): want a published Linux pod", got.Spec.NodeSelector, rec, err)
	}
	if node := e.waitScheduled(plain, got.Name, scheduleTimeout); osOf(node) != "linux" {
		t.Errorf("the third-party pod landed on %s (%s)", node.Name, osOf(node))
	}
	d, err := e.client.AppsV1().Deployments(plain).Get(e.ctx, "exporter", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sel := d.Spec.Template.Spec.NodeSelector[v1.LabelOSStable]; sel != "linux" || d.Annotations[wellknown.AnnotationTemplate] == "" {
		t.Errorf("the Deployment's template has kubernetes.io/os %q, record %q: want linux, recorded", sel, d.Annotations[wellknown.AnnotationTemplate])
	}

	for _, ns := range []string{optedOut, metav1.NamespaceSystem} {
		if p := e.waitDeploymentPod(ns, "exporter"); p.Spec.SchedulerName != v1.DefaultSchedulerName {
			t.Errorf("namespace %s: the pod has schedulerName %q, want %q", ns, p.Spec.SchedulerName, v1.DefaultSchedulerName)
		}
		d, err := e.client.AppsV1().Deployments(ns).Get(e.ctx, "exporter", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if d.Spec.Template.Spec.NodeSelector != nil || d.Annotations[wellknown.AnnotationTemplate] != "" {
			t.Errorf("namespace %s: the Deployment's template was written: selector %v, record %q", ns, d.Spec.Template.Spec.NodeSelector, d.Annotations[wellknown.AnnotationTemplate])
		}
	}

	optedOutPod := newPod("keeps-its-scheduler", "", "quay.io/prometheus/node-exporter:v1.8.2")
	optedOutPod.Labels[wellknown.LabelOptIn] = "false"
	if created := e.createPod(plain, optedOutPod); created.Spec.SchedulerName != v1.DefaultSchedulerName {
		t.Errorf("the pod labelled opt-in=false has schedulerName %q, want %q", created.Spec.SchedulerName, v1.DefaultSchedulerName)
	}
}
