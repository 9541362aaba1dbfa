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
	"bytes"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/windows-aware/windows-aware/internal/controlplane"
	"github.com/windows-aware/windows-aware/internal/manifest"
	"github.com/windows-aware/windows-aware/internal/registryserver"
	"github.com/windows-aware/windows-aware/pkg/publish"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// TestChartUninstallHook runs what helm uninstall's pre-delete hook runs
// (the chart's Job, publish-uninstall-hook.yaml) against the real API
// server: with the webhook gating pods and no gate remover left to ungate
// them, the Job's command (bin/admission ungate-all), as the hook's own
// ServiceAccount with the chart's ClusterRole, deletes the webhook
// configuration and removes our gate, and its label, from every gated pod,
// keeping another owner's gate; a pod created afterwards is not gated.
// The chart's admission policy for that identity refuses any other change
// it might send.
// (The Job itself needs a kubelet; the test runs its command line.)
func TestChartUninstallHook(t *testing.T) {
	requireRegistryBinary(t)
	e := requireCluster(t)
	bins, err := controlplane.FindBinaries("", "", controlplane.Admission)
	if err != nil {
		t.Fatalf("the admission binary: %v", err)
	}
	reg := startRegistry(t, registryserver.Options{InMemory: true})
	down, err := reg.NewFaultProxy()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = down.Close() })
	ns := e.namespace()

	// The webhook gates pods for a registry, for longer than the test.
	cfgFile := writeGateSchedulerConfig(t, e, reg, down, "10m", "3s")
	e.startPublishWebhook(ns, webhookOptions{profile: profileGate, config: cfgFile})
	// registerPublishWebhookFor's name: the shipped one and the namespace.
	webhook := "00-windows-aware-publish-" + ns
	image := reg.Host + "/contoso/uninstall-web:1.0"
	held := gatePod("held", image)
	held.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "example.com/hold"}}
	for _, p := range []*v1.Pod{gatePod("web-1", image), gatePod("web-2", image), held} {
		if created := e.createPod(ns, p); !publish.Gated(created) || created.Labels[wellknown.LabelGated] != "true" {
			t.Fatalf("pod %s was created with gates %v and labels %v, want the gate and its label", p.Name, created.Spec.SchedulingGates, created.Labels)
		}
	}

	// The hook's objects as the chart renders them for a release in ns.
	h := newHelmRelease(e, ns)
	out := h.run("template", publishRelease, h.chart, "--show-only", "templates/publish-uninstall-hook.yaml",
		"--set", "publish.enabled=true", "--set", "pluginArgs.imageResolution.scope=Windows",
		"--set", "pluginArgs.imageResolution.registries[0].host="+reg.Host)
	objs, err := manifest.Decode([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	var job *batchv1.Job
	var account, policy string
	for _, obj := range objs {
		switch o := obj.(type) {
		case *batchv1.Job:
			job = o
			continue
		case *v1.ServiceAccount:
			account = o.Name
		case *rbacv1.ClusterRole:
			// The chart names its own webhook configuration; the test's
			// has the namespace in its name.
			for i, r := range o.Rules {
				if slices.Contains(r.Resources, "mutatingwebhookconfigurations") {
					if len(r.ResourceNames) != 1 {
						t.Fatalf("the hook may delete webhook configurations %v, want its own alone", r.ResourceNames)
					}
					o.Rules[i].ResourceNames = []string{webhook}
				}
			}
		case *admissionregistrationv1.ValidatingAdmissionPolicy:
			policy = o.Name
		}
		e.createObject(obj)
	}
	if job == nil || account == "" || policy == "" {
		t.Fatalf("the chart renders no hook Job, ServiceAccount or admission policy: %s", out)
	}
	hookKubeconfig := e.tokenKubeconfig(e.serviceAccountToken(ns, account))

	// The hook's identity may remove the gate, and nothing else.
	hook := e.clientOf(hookKubeconfig)
	e.waitPolicyLoaded(hook, ns, "held", policy)
	for _, tt := range []struct {
		name  string
		patch string
	}{
		{"add a label", `[{"op":"add","path":"/metadata/labels/team","value":"b"}]`},
		{"add an annotation", `[{"op":"add","path":"/metadata/annotations","value":{"note":"x"}}]`},
		{"remove another owner's gate", `[{"op":"replace","path":"/spec/schedulingGates","value":[{"name":"windows-aware.x-k8s.io/platform"}]}]`},
		{"add a node selector", `[{"op":"add","path":"/spec/nodeSelector/pool","value":"attacker"}]`},
		{"tolerate everything", `[{"op":"add","path":"/spec/tolerations/-","value":{"operator":"Exists"}}]`},
		{"change an image", `[{"op":"replace","path":"/spec/containers/0/image","value":"evil.example.com/miner:1"}]`},
	} {
		_, err := hook.CoreV1().Pods(ns).Patch(e.ctx, "held", types.JSONPatchType, []byte(tt.patch), metav1.PatchOptions{})
		if err == nil || !strings.Contains(err.Error(), policy) {
			t.Errorf("%s as the hook: %v, want a refusal by %s", tt.name, err, policy)
		}
	}

	// The Job's command, as the hook's ServiceAccount, on the test's
	// webhook configuration.
	var args []string
	for _, a := range job.Spec.Template.Spec.Containers[0].Command[1:] {
		if strings.HasPrefix(a, "--webhook-configuration=") {
			a = "--webhook-configuration=" + webhook
		}
		args = append(args, a)
	}
	args = append(args, "--kubeconfig="+hookKubeconfig, "-v=2")
	cmd := exec.CommandContext(e.ctx, bins.Admission, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("admission %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	t.Logf("admission ungate-all: %s", stdout.String())
	if !strings.Contains(stdout.String(), "ungated=3 ") {
		t.Errorf("output %q, want ungated=3", stdout.String())
	}

	_, err = e.client.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(e.ctx, webhook, metav1.GetOptions{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("the webhook configuration: %v, want it deleted", err)
	}
	for _, name := range []string{"web-1", "web-2", "held"} {
		p := e.getPod(ns, name)
		want := []string(nil)
		if name == "held" {
			want = []string{"example.com/hold"}
		}
		var gates []string
		for _, g := range p.Spec.SchedulingGates {
			gates = append(gates, g.Name)
		}
		if !slices.Equal(gates, want) || p.Labels[wellknown.LabelGated] != "" {
			t.Errorf("pod %s: gates %v, labels %v; want gates %v and no label %s", name, gates, p.Labels, want, wellknown.LabelGated)
		}
	}
	if p := e.createPod(ns, gatePod("after", image)); publish.Gated(p) {
		t.Error("a pod created after the hook is gated")
	}
}

// waitPolicyLoaded waits until the admission policy named refuses client's
// patch adding a label to the pod: a new policy takes effect once the API
// server has loaded it. A label let through before then is taken off again.
func (e *env) waitPolicyLoaded(client kubernetes.Interface, ns, pod, policy string) {
	e.t.Helper()
	add := []byte(`[{"op":"add","path":"/metadata/labels/policy-probe","value":"x"}]`)
	remove := []byte(`[{"op":"remove","path":"/metadata/labels/policy-probe"}]`)
	deadline := time.Now().Add(scheduleTimeout)
	for {
		_, err := client.CoreV1().Pods(ns).Patch(e.ctx, pod, types.JSONPatchType, add, metav1.PatchOptions{})
		switch {
		case err != nil && strings.Contains(err.Error(), policy):
			return
		case err != nil:
			e.t.Fatalf("adding a label as the hook: %v, want a refusal by %s", err, policy)
		}
		if _, err := e.client.CoreV1().Pods(ns).Patch(e.ctx, pod, types.JSONPatchType, remove, metav1.PatchOptions{}); err != nil {
			e.t.Fatal(err)
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("the admission policy %s let the hook add a label for %s", policy, scheduleTimeout)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
