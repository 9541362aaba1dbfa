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
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/windows-aware/windows-aware/internal/controlplane"
	"github.com/windows-aware/windows-aware/internal/localproc"
	"github.com/windows-aware/windows-aware/internal/oracle"
	"github.com/windows-aware/windows-aware/internal/registryserver"
	"github.com/windows-aware/windows-aware/internal/testimage"
	"github.com/windows-aware/windows-aware/pkg/publish"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// TestUngateUnlabelled: pods that carry the publish gate without its label,
// which the gate remover's watch of the label never sees, are ungated as
// labelled pods are, by the gate remover (bin/admission --webhook=false
// --ungate, with the shipped RBAC and policy) when it takes the Lease and
// lists every pod: a pod created with the gate and no webhook to label it,
// and a gated pod whose label was removed get their registry's build; one
// whose registry is down, the tag rules and one Warning Event. A pod
// created with the gate through the webhook comes out labelled.
func TestUngateUnlabelled(t *testing.T) {
	requireRegistryBinary(t)
	e := requireCluster(t)
	reg := startRegistry(t, registryserver.Options{InMemory: true})
	down := mustFaultProxy(t, reg)
	if err := down.SetDown(true); err != nil {
		t.Fatal(err)
	}
	a, err := single(win(testimage.OSVersion2019)).Build()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Push(e.ctx, "contoso/unlabelled:1", a); err != nil {
		t.Fatal(err)
	}
	ns, hooked := e.namespace(), e.namespace()
	cfgFile := writeGateSchedulerConfig(t, e, reg, down, "5s", "3s")
	kubeconfig := e.applyUngateRBAC()
	e.startPublishWebhook(hooked, webhookOptions{profile: profileGate, config: cfgFile})

	tests := []struct {
		name, image string
		// labelled: created with the label; unlabel: the label removed
		// after the creation; webhook: created through the webhook.
		labelled, unlabel, webhook bool
		wantBuilds                 []string
		wantFallback               bool
	}{
		{name: "created-gated", image: reg.Host + "/contoso/unlabelled:1", wantBuilds: []string{oracle.Build2019}},
		{name: "label-removed", image: reg.Host + "/contoso/unlabelled:1", labelled: true, unlabel: true, wantBuilds: []string{oracle.Build2019}},
		{name: "created-gated-registry-down", image: down.Host + "/contoso/unlabelled:1", wantFallback: true},
		{name: "created-gated-through-the-webhook", image: reg.Host + "/contoso/unlabelled:1", webhook: true, wantBuilds: []string{oracle.Build2019}},
	}
	namespaceOf := func(webhook bool) string {
		if webhook {
			return hooked
		}
		return ns
	}
	for _, tt := range tests {
		pod := gateCarrier(tt.name, tt.image)
		if tt.labelled {
			pod.Labels[wellknown.LabelGated] = "true"
		}
		created := e.createPod(namespaceOf(tt.webhook), pod)
		if tt.unlabel {
			created = e.removeGateLabel(ns, tt.name)
		}
		wantLabel := tt.webhook || tt.labelled && !tt.unlabel
		if !publish.Gated(created) || (created.Labels[wellknown.LabelGated] == "true") != wantLabel {
			t.Errorf("pod %s: gates %v, labels %v; want the gate, and the label %v", tt.name, created.Spec.SchedulingGates, created.Labels, wantLabel)
		}
	}

	e.startGateRemover("unlabelled", cfgFile, kubeconfig)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := *e
			e.t = t
			ns := namespaceOf(tt.webhook)
			got := e.waitUngated(ns, tt.name)
			if builds := requiredBuilds(got); !slices.Equal(builds, tt.wantBuilds) {
				t.Errorf("required builds %v, want %v", builds, tt.wantBuilds)
			}
			rec, err := wellknown.ParseRecord(got.Annotations[wellknown.AnnotationPublished])
			if err != nil || (rec.Fallback == "TagRules") != tt.wantFallback {
				t.Errorf("record %+v (%v), want the fallback: %v", rec, err, tt.wantFallback)
			}
			if !tt.wantFallback {
				return
			}
			var warnings []string
			for _, msg := range e.waitEvents(ns, tt.name, "ImagePlatformsUnknown", scheduleTimeout) {
				if strings.Contains(msg, "removed the scheduling gate") {
					warnings = append(warnings, msg)
				}
			}
			if len(warnings) != 1 || !strings.Contains(warnings[0], tt.image) {
				t.Errorf("ungate Warning Events %q, want one naming %s", warnings, tt.image)
			}
		})
	}
}

// TestUngateUnlabelledLater: a pod gated without the label while the gate
// remover runs, after its first list of every pod, is ungated by a later
// one (--ungate-sweep-period); the watch of the label never sees it.
func TestUngateUnlabelledLater(t *testing.T) {
	requireRegistryBinary(t)
	e := requireCluster(t)
	reg := startRegistry(t, registryserver.Options{InMemory: true})
	a, err := single(win(testimage.OSVersion2019)).Build()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Push(e.ctx, "contoso/later:1", a); err != nil {
		t.Fatal(err)
	}
	ns := e.namespace()
	cfgFile := writeGateSchedulerConfig(t, e, reg, mustFaultProxy(t, reg), "5s", "3s")
	kubeconfig := e.applyUngateRBAC()
	e.startGateRemoverArgs("later", cfgFile, kubeconfig, "--ungate-sweep-period=2s")

	// The first pod is found by a list. Once it is ungated, that list has
	// started, and its pages are one snapshot of the cluster from before:
	// the second pod, created then, is found only by a later list (the
	// watch of the label does not see it).
	for _, name := range []string{"first", "later"} {
		created := e.createPod(ns, gateCarrier(name, reg.Host+"/contoso/later:1"))
		if !publish.Gated(created) || created.Labels[wellknown.LabelGated] != "" {
			t.Fatalf("pod %s created with gates %v and labels %v, want the gate alone", name, created.Spec.SchedulingGates, created.Labels)
		}
		got := e.waitUngated(ns, name)
		if builds := requiredBuilds(got); !slices.Equal(builds, []string{oracle.Build2019}) {
			t.Errorf("pod %s: required builds %v, want [%s]", name, builds, oracle.Build2019)
		}
	}
}

// gateCarrier is a pod of profileGate created with the publish gate
// already, without its label, as no webhook gates it.
func gateCarrier(name, image string) *v1.Pod {
	p := gatePod(name, image)
	p.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: wellknown.GatePlatform}}
	return p
}

// removeGateLabel removes the publish gate's label from the pod, as a user
// or a tool might, and returns the pod.
func (e *env) removeGateLabel(ns, name string) *v1.Pod {
	e.t.Helper()
	patch := []byte(`{"metadata":{"labels":{"` + wellknown.LabelGated + `":null}}}`)
	p, err := e.client.CoreV1().Pods(ns).Patch(e.ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil {
		e.t.Fatalf("removing the label of pod %s: %v", name, err)
	}
	return p
}

// startGateRemoverArgs is startGateRemover with more flags.
func (e *env) startGateRemoverArgs(name, cfgFile, kubeconfig string, args ...string) *localproc.Process {
	e.t.Helper()
	bins, err := controlplane.FindBinaries("", "", controlplane.Admission)
	if err != nil {
		e.t.Fatalf("the admission binary: %v", err)
	}
	p, err := e.c.Run(e.ctx, "gate-remover-"+name, bins.Admission, append([]string{
		"--config=" + cfgFile, "--profile=" + profileGate, "--webhook=false", "--ungate",
		"--kubeconfig=" + kubeconfig, "--leader-elect-resource-namespace=kube-system",
		"--metrics-bind-address=", "-v=2",
	}, args...), "")
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
