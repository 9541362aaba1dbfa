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
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"github.com/windows-aware/windows-aware/internal/controlplane"
	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/localwebhook"
	"github.com/windows-aware/windows-aware/internal/oracle"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// agentImage is a third-party agent whose tag says nothing of its OS.
const agentImage = "docker.io/fluent/fluent-bit:3.1"

// TestTemplatesKeepDaemonSetOffWindows runs the shipped configuration of
// manifests/publish/templates against a real kube-apiserver and
// kube-controller-manager (its DaemonSet and Job controllers):
//
//   - in a namespace labelled windows-aware.x-k8s.io/opt-in=true, a Linux
//     DaemonSet that tolerates every taint gets kubernetes.io/os: linux and
//     the record in its template, and its controller makes no pod for the
//     Windows node; in a namespace without the label, the same DaemonSet
//     gets a pod on each node (what the mode prevents);
//   - an UPDATE that changes nothing in the template leaves it as it is:
//     generation unchanged, no new ControllerRevision;
//   - re-applying the original manifest, by update and by server-side
//     apply, is idempotent: the same template, no rollout;
//   - a Job's template gets the selector, and so do the pods its
//     controller makes.
func TestTemplatesKeepDaemonSetOffWindows(t *testing.T) {
	e := ownClusterWith(t, controlplane.Options{Schedulers: 1, ControllerManager: true})
	optedIn, plain := e.namespace(), e.namespace()
	e.labelNamespace(optedIn, "true")
	e.createNodes(
		linuxNode("tpl-linux"),
		windowsNode("tpl-win-2022", oracle.Build2022, fixture.WindowsTaint),
	)
	e.startTemplatesWebhook("templates", optedIn, plain)

	for _, ns := range []string{optedIn, plain} {
		if _, err := e.client.AppsV1().DaemonSets(ns).Create(e.ctx, agentDaemonSet(ns), metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating the DaemonSet in %s: %v", ns, err)
		}
	}
	// Without the mode, the controller makes a pod for every node, the
	// Windows one too, where its Linux image never pulls.
	if got := e.waitDaemonSetDesired(plain, "agent", 2); got != 2 {
		t.Fatalf("the plain namespace's DaemonSet wants %d pods, want 2 (one per node): the test shows nothing", got)
	}
	ds := e.getDaemonSet(optedIn, "agent")
	if got := ds.Spec.Template.Spec.NodeSelector[v1.LabelOSStable]; got != "linux" {
		t.Errorf("the opted-in DaemonSet's template has kubernetes.io/os %q, want linux", got)
	}
	if rec, err := wellknown.ParseRecord(ds.Annotations[wellknown.AnnotationTemplate]); err != nil || rec.OS != "linux" {
		t.Errorf("the DaemonSet's record %+v (%v): want os linux", rec, err)
	}
	if got := e.waitDaemonSetDesired(optedIn, "agent", 1); got != 1 {
		t.Errorf("the opted-in DaemonSet wants %d pods, want 1: the Linux node's", got)
	}
	for _, p := range e.waitPods(optedIn, "app=agent", 1) {
		if node := daemonPodNode(&p); node != "tpl-linux" {
			t.Errorf("DaemonSet pod %s is for node %q, want tpl-linux", p.Name, node)
		}
	}
	generation, revisions := ds.Generation, e.controllerRevisions(optedIn)

	t.Run("an UPDATE that changes nothing in the template", func(t *testing.T) {
		live := e.getDaemonSet(optedIn, "agent")
		live.Labels = map[string]string{"team": "observability"}
		updated, err := e.client.AppsV1().DaemonSets(optedIn).Update(e.ctx, live, metav1.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		e.checkNoRollout(t, updated, generation, revisions)
	})
	t.Run("re-applying the original manifest by update", func(t *testing.T) {
		live := e.getDaemonSet(optedIn, "agent")
		original := agentDaemonSet(optedIn)
		original.ResourceVersion = live.ResourceVersion
		updated, err := e.client.AppsV1().DaemonSets(optedIn).Update(e.ctx, original, metav1.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		e.checkNoRollout(t, updated, generation, revisions)
		if updated.Annotations[wellknown.AnnotationTemplate] == "" {
			t.Error("the record is gone")
		}
	})
	t.Run("re-applying the original manifest by server-side apply", func(t *testing.T) {
		original := agentDaemonSet(optedIn)
		original.TypeMeta = metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"}
		data, err := json.Marshal(original)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			updated, err := e.client.AppsV1().DaemonSets(optedIn).Patch(e.ctx, "agent", types.ApplyPatchType, data,
				metav1.PatchOptions{FieldManager: "gitops", Force: ptr.To(true)})
			if err != nil {
				t.Fatal(err)
			}
			e.checkNoRollout(t, updated, generation, revisions)
		}
	})

	t.Run("a Job and its pods", func(t *testing.T) {
		job := &batchv1.Job{
			ObjectMeta: metav1.ObjectMeta{Name: "migrate", Namespace: optedIn},
			Spec: batchv1.JobSpec{Template: v1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "migrate"}},
				Spec: v1.PodSpec{
					RestartPolicy: v1.RestartPolicyNever,
					Containers:    []v1.Container{{Name: "migrate", Image: "docker.io/library/busybox:1.36"}},
				},
			}},
		}
		created, err := e.client.BatchV1().Jobs(optedIn).Create(e.ctx, job, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := created.Spec.Template.Spec.NodeSelector[v1.LabelOSStable]; got != "linux" {
			t.Errorf("the Job's template has kubernetes.io/os %q, want linux", got)
		}
		for _, p := range e.waitPods(optedIn, "app=migrate", 1) {
			if got := p.Spec.NodeSelector[v1.LabelOSStable]; got != "linux" {
				t.Errorf("the Job's pod %s has kubernetes.io/os %q, want linux", p.Name, got)
			}
		}
	})
}

// agentDaemonSet is the manifest of a third-party log agent: a Linux
// image, no node selection, every taint tolerated.
func agentDaemonSet(ns string) *appsv1.DaemonSet {
	labels := map[string]string{"app": "agent"}
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: ns},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: v1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: v1.PodSpec{
					Containers:  []v1.Container{{Name: "agent", Image: agentImage}},
					Tolerations: []v1.Toleration{{Operator: v1.TolerationOpExists}},
				},
			},
		},
	}
}

func (e *env) labelNamespace(name, optIn string) {
	e.t.Helper()
	ns, err := e.client.CoreV1().Namespaces().Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	if ns.Labels == nil {
		ns.Labels = map[string]string{}
	}
	ns.Labels[wellknown.LabelOptIn] = optIn
	if _, err := e.client.CoreV1().Namespaces().Update(e.ctx, ns, metav1.UpdateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) getDaemonSet(ns, name string) *appsv1.DaemonSet {
	e.t.Helper()
	ds, err := e.client.AppsV1().DaemonSets(ns).Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return ds
}

// waitDaemonSetDesired waits until the DaemonSet controller has counted
// the nodes the DaemonSet's pods are for, and returns that count (the
// last one seen when it is not want within a minute).
func (e *env) waitDaemonSetDesired(ns, name string, want int32) int32 {
	e.t.Helper()
	var got int32
	_ = wait.PollUntilContextTimeout(e.ctx, 200*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		ds := e.getDaemonSet(ns, name)
		got = ds.Status.DesiredNumberScheduled
		return ds.Status.ObservedGeneration == ds.Generation && got == want, nil
	})
	return got
}

// waitPods waits for n pods matching selector in ns, and returns them.
func (e *env) waitPods(ns, selector string, n int) []v1.Pod {
	e.t.Helper()
	var pods *v1.PodList
	err := wait.PollUntilContextTimeout(e.ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		var err error
		pods, err = e.client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
		return err == nil && len(pods.Items) >= n, nil
	})
	if err != nil {
		e.t.Fatalf("no %d pods %s in %s within a minute: %v", n, selector, ns, err)
	}
	return pods.Items
}

// daemonPodNode is the node a DaemonSet's pod is for: the name its
// controller's node affinity pins.
func daemonPodNode(p *v1.Pod) string {
	if p.Spec.NodeName != "" {
		return p.Spec.NodeName
	}
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			for _, f := range term.MatchFields {
				if f.Key == "metadata.name" && len(f.Values) == 1 {
					return f.Values[0]
				}
			}
		}
	}
	return ""
}

func (e *env) controllerRevisions(ns string) int {
	e.t.Helper()
	list, err := e.client.AppsV1().ControllerRevisions(ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return len(list.Items)
}

// checkNoRollout checks that the DaemonSet kept its generation and its
// selector, and that its controller, given time to act, made no new
// ControllerRevision.
func (e *env) checkNoRollout(t *testing.T, ds *appsv1.DaemonSet, generation int64, revisions int) {
	t.Helper()
	if ds.Generation != generation {
		t.Errorf("generation %d, want %d: the template changed", ds.Generation, generation)
	}
	if got := ds.Spec.Template.Spec.NodeSelector[v1.LabelOSStable]; got != "linux" {
		t.Errorf("the template has kubernetes.io/os %q, want linux", got)
	}
	// The controller writes a new revision within moments of a template
	// change; its absence after the generation is observed is the check.
	_ = wait.PollUntilContextTimeout(e.ctx, 200*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return e.getDaemonSet(ds.Namespace, ds.Name).Status.ObservedGeneration >= ds.Generation, nil
	})
	if got := e.controllerRevisions(ds.Namespace); got != revisions {
		t.Errorf("%d ControllerRevisions, want %d: a rollout started", got, revisions)
	}
}

// startTemplatesWebhook runs bin/admission on loopback and registers the
// configuration of manifests/publish/<variant> for namespaces alone (each
// webhook with what else its shipped selector asks), waiting until the
// API server calls it for the templates of the first namespace.
func (e *env) startTemplatesWebhook(variant string, namespaces ...string) {
	e.t.Helper()
	webhook, err := localwebhook.Start(e.ctx, e.c, localwebhook.Options{
		Name:   "admission-" + namespaces[0],
		PKIDir: filepath.Join(e.c.Dir, "templates-pki-"+namespaces[0]),
		Args:   []string{"--config=" + e.c.SchedulerConfigFile, "--profile=" + windowsAware, "--metrics-auth=none"},
	})
	if err != nil {
		e.t.Fatalf("starting the webhook: %v", err)
	}
	e.t.Cleanup(func() {
		if e.t.Failed() {
			e.t.Logf("admission log ends with:\n%s", webhook.Tail(6000))
		}
		webhook.Stop(10 * time.Second)
	})

	root, err := controlplane.RepoRoot()
	if err != nil {
		e.t.Fatal(err)
	}
	cfg, err := localwebhook.ReadMutating(filepath.Join(root, "manifests", "publish", variant, "mutatingwebhookconfiguration.yaml"), webhook.URL, webhook.CABundle, false)
	if err != nil {
		e.t.Fatal(err)
	}
	cfg.Name += "-" + namespaces[0]
	for i := range cfg.Webhooks {
		cfg.Webhooks[i].NamespaceSelector = localwebhook.OnlyNamespaces(cfg.Webhooks[i].NamespaceSelector, namespaces...)
	}
	client := e.client.AdmissionregistrationV1().MutatingWebhookConfigurations()
	if _, err := client.Create(e.ctx, cfg, metav1.CreateOptions{}); err != nil {
		e.t.Fatalf("registering the webhook: %v", err)
	}
	e.t.Cleanup(func() { _ = client.Delete(context.Background(), cfg.Name, metav1.DeleteOptions{}) })

	// The API server picks configurations up from an informer: probe with
	// dry-run creates until one comes back written.
	deadline := time.Now().Add(30 * time.Second)
	for {
		probe := agentDaemonSet(namespaces[0])
		probe.Name = "probe"
		got, err := e.client.AppsV1().DaemonSets(namespaces[0]).Create(e.ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil && got.Annotations[wellknown.AnnotationTemplate] != "" {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("the API server did not call the templates webhook within 30s (last error: %v)", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
