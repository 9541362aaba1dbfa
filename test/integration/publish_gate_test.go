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
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/windows-aware/windows-aware/internal/controlplane"
	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/localproc"
	"github.com/windows-aware/windows-aware/internal/manifest"
	"github.com/windows-aware/windows-aware/internal/oracle"
	"github.com/windows-aware/windows-aware/internal/registryserver"
	"github.com/windows-aware/windows-aware/internal/testimage"
	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
	"github.com/windows-aware/windows-aware/pkg/publish"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// profileGate is the profile of TestPublishGate: the windows-aware profile
// resolving the images of Windows pods, placing them by their tags when
// the registry fails.
const profileGate = "publish-gate"

// ungateSA is the gate remover's ServiceAccount in manifests/publish-gate,
// which bin/admission --webhook=false --ungate acts as (by impersonation).
const ungateSA = "system:serviceaccount:kube-system:windows-aware-publish-ungate"

// TestPublishGate: with image resolution on, the webhook gates a pod whose
// image's tag names no build, and the gate remover (bin/admission
// --webhook=false --ungate), acting with the shipped RBAC and
// ValidatingAdmissionPolicy of manifests/publish-gate as its own
// ServiceAccount, resolves the image from the
// real registry, writes the OS selector and the build affinity and removes
// the gate in one update; the scheduler then binds the pod to a node of
// that build. With the registry down, the gate is removed under onFailure
// (the tag rules) with one Warning Event naming the image and the error,
// and the pod is still placed on Windows. No pod stays gated.
func TestPublishGate(t *testing.T) {
	requireRegistryBinary(t)
	e := requireCluster(t)
	reg := startRegistry(t, registryserver.Options{InMemory: true})
	down, err := reg.NewFaultProxy()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = down.Close() })
	if err := down.SetDown(true); err != nil {
		t.Fatal(err)
	}
	ns := e.namespace()
	e.createNodes(
		linuxNode("gate-linux"),
		windowsNode("gate-2019", oracle.Build2019, fixture.WindowsTaint),
		windowsNode("gate-2022", oracle.Build2022, fixture.WindowsTaint),
	)

	cfgFile := writeGateSchedulerConfig(t, e, reg, down, "5s", "3s")
	e.runSchedulerConfig("scheduler-gate", cfgFile)
	kubeconfig := e.applyUngateRBAC()

	e.startPublishWebhook(ns, webhookOptions{profile: profileGate, config: cfgFile})
	e.startGateRemover("ungate", cfgFile, kubeconfig)

	// A private image built on 2019, whose tag names no build.
	a, err := single(win(testimage.OSVersion2019)).Build()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Push(e.ctx, "contoso/gate-web:1.4.2", a); err != nil {
		t.Fatal(err)
	}
	resolved := gatePod("web", reg.Host+"/contoso/gate-web:1.4.2")
	fallback := gatePod("web-down", down.Host+"/contoso/gate-web:1.4.2")
	for _, p := range []*v1.Pod{resolved, fallback} {
		created := e.createPod(ns, p)
		if !publish.Gated(created) || created.Labels[wellknown.LabelGated] != "true" {
			t.Errorf("pod %s was created with gates %v and labels %v, want the gate and its label", p.Name, created.Spec.SchedulingGates, created.Labels)
		}
	}

	// Resolved: the registry's build is written, and the pod lands on it.
	got := e.waitUngated(ns, resolved.Name)
	if sel := got.Spec.NodeSelector[v1.LabelOSStable]; sel != "windows" {
		t.Errorf("nodeSelector %v, want kubernetes.io/os=windows", got.Spec.NodeSelector)
	}
	if builds := requiredBuilds(got); !slices.Equal(builds, []string{oracle.Build2019}) {
		t.Errorf("required builds %v, want [%s]", builds, oracle.Build2019)
	}
	if rec, err := wellknown.ParseRecord(got.Annotations[wellknown.AnnotationPublished]); err != nil || rec.Source != "registry" || rec.Fallback != "" {
		t.Errorf("record %+v (%v), want source registry and no fallback", rec, err)
	}
	if node := e.waitScheduled(ns, resolved.Name, scheduleTimeout); buildOf(node) != oracle.Build2019 {
		t.Errorf("the resolved pod landed on %s (%s %s)", node.Name, osOf(node), buildOf(node))
	}

	// Registry down: ungated by the tag rules, one Warning Event.
	got = e.waitUngated(ns, fallback.Name)
	if builds := requiredBuilds(got); builds != nil {
		t.Errorf("required builds %v, want none (the tag names no build)", builds)
	}
	if rec, err := wellknown.ParseRecord(got.Annotations[wellknown.AnnotationPublished]); err != nil || rec.Fallback != "TagRules" {
		t.Errorf("record %+v (%v), want fallback TagRules", rec, err)
	}
	var warnings []string
	for _, msg := range e.waitEvents(ns, fallback.Name, "ImagePlatformsUnknown", scheduleTimeout) {
		if strings.Contains(msg, "removed the scheduling gate") {
			warnings = append(warnings, msg)
		}
	}
	if len(warnings) != 1 {
		t.Errorf("ungate Warning Events %q, want one", warnings)
	} else {
		for _, want := range []string{fallback.Spec.Containers[0].Image, "connection refused", "placing the pod by its image tags"} {
			if !strings.Contains(warnings[0], want) {
				t.Errorf("event %q does not say %q", warnings[0], want)
			}
		}
	}
	if node := e.waitScheduled(ns, fallback.Name, scheduleTimeout); osOf(node) != "windows" {
		t.Errorf("the fallback pod landed on %s (%s %s)", node.Name, osOf(node), buildOf(node))
	}

	// Nothing stays gated.
	pods, err := e.client.CoreV1().Pods(ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if publish.Gated(&p) {
			t.Errorf("pod %s is still gated", p.Name)
		}
	}
}

func gatePod(name, image string) *v1.Pod {
	p := newPod(name, profileGate, image)
	p.Spec.OS = &v1.PodOS{Name: v1.Windows}
	return p
}

// waitUngated waits until the pod's gate is removed, and returns it.
func (e *env) waitUngated(ns, name string) *v1.Pod {
	e.t.Helper()
	deadline := time.Now().Add(scheduleTimeout)
	for {
		p := e.getPod(ns, name)
		if !publish.Gated(p) {
			if p.Labels[wellknown.LabelGated] != "" {
				e.t.Errorf("pod %s was ungated but keeps the label %s", name, wellknown.LabelGated)
			}
			return p
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("pod %s/%s still gated after %s; events: %s", ns, name, scheduleTimeout, e.describeEvents(ns, name))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// writeGateSchedulerConfig writes the configuration of the scheduler and
// the webhook: profileGate, resolving from reg and down (with reg's
// credentials), holding pods at most gateTimeout, each registry request at
// most requestTimeout.
func writeGateSchedulerConfig(t *testing.T, e *env, reg *registryserver.Server, down *registryserver.FaultProxy, gateTimeout, requestTimeout string) string {
	t.Helper()
	dir := t.TempDir()
	dockerConfig := filepath.Join(dir, "docker-config.json")
	if err := os.WriteFile(dockerConfig, registrytest.DockerConfigJSON(reg.Username, reg.Password, reg.Host, down.Host), 0o600); err != nil {
		t.Fatal(err)
	}
	var registries []map[string]any
	for _, h := range []string{reg.Host, down.Host} {
		registries = append(registries, map[string]any{"host": h, "allowPrivate": true, "caFile": reg.CAFile})
	}
	return e.writeSchedulerConfig(dir, e.c.SchedulerKubeconfig, resolutionProfile(profileGate, map[string]any{
		"scope": "Windows", "onFailure": "TagRules", "gateTimeout": gateTimeout, "requestTimeout": requestTimeout,
		"registries": registries, "credentials": map[string]any{"dockerConfigFile": dockerConfig},
	}))
}

// applyUngateRBAC creates the RBAC objects and the ValidatingAdmissionPolicy
// of manifests/publish-gate and returns a kubeconfig that acts as the gate
// remover's ServiceAccount (the admin's credentials, impersonating it), so
// that the controller has exactly the shipped rights, and is held to the
// shipped policy. The policy is in force when it returns.
func (e *env) applyUngateRBAC() string {
	e.t.Helper()
	root, err := controlplane.RepoRoot()
	if err != nil {
		e.t.Fatal(err)
	}
	var objs []runtime.Object
	for _, f := range []string{"rbac.yaml", "policy.yaml"} {
		got, err := manifest.ReadFile(filepath.Join(root, "manifests", "publish-gate", f))
		if err != nil {
			e.t.Fatal(err)
		}
		objs = append(objs, got...)
	}
	for _, obj := range objs {
		e.createObject(obj)
	}
	cfg, err := clientcmd.LoadFromFile(e.c.Kubeconfig)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, auth := range cfg.AuthInfos {
		auth.Impersonate = ungateSA
		auth.ImpersonateGroups = []string{"system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"}
	}
	file := filepath.Join(e.t.TempDir(), "ungate.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, file); err != nil {
		e.t.Fatal(err)
	}
	e.waitUngatePolicy(file)
	return file
}

// startGateRemover runs bin/admission --webhook=false --ungate with the
// configuration cfgFile, as kubeconfig's identity, standing for the Lease
// of manifests/publish-gate in kube-system. The process is stopped when the
// test ends (its log's end printed if the test failed).
func (e *env) startGateRemover(name, cfgFile, kubeconfig string) *localproc.Process {
	e.t.Helper()
	bins, err := controlplane.FindBinaries("", "", controlplane.Admission)
	if err != nil {
		e.t.Fatalf("the admission binary: %v", err)
	}
	p, err := e.c.Run(e.ctx, "gate-remover-"+name, bins.Admission, []string{
		"--config=" + cfgFile, "--profile=" + profileGate, "--webhook=false", "--ungate",
		"--kubeconfig=" + kubeconfig, "--leader-elect-resource-namespace=kube-system",
		"--metrics-bind-address=", "-v=2",
	}, "")
	if err != nil {
		e.t.Fatalf("starting the gate remover: %v", err)
	}
	e.t.Cleanup(func() {
		if e.t.Failed() {
			e.t.Logf("gate remover %s log ends with:\n%s", name, p.Tail(6000))
		}
		if !p.Exited() {
			p.Stop(10 * time.Second)
		}
	})
	return p
}
