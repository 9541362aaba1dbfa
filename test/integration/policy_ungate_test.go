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
	"fmt"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/windows-aware/windows-aware/internal/oracle"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// TestUngatePolicyOnlyItsJob holds the chart's admission policy for the
// gate remover (publish-ungate-policy.yaml, alike in
// manifests/publish-gate/policy.yaml) to the gate remover's job, on the
// real API server, with a token of the chart's gate remover ServiceAccount
// and the rights the chart grants it (patch on every pod): it may add
// tolerations of the profile's osTaints keys only, and change only pods
// that carry the gate (of one whose gate is gone, remove the label only).
// A stolen token cannot make any pod tolerate a taint of another key, nor
// touch a pod that was never gated. What the gate remover sends still
// passes (TestUngatePolicy, TestPublishGate).
func TestUngatePolicyOnlyItsJob(t *testing.T) {
	e := requireCluster(t)
	ns := e.namespace()
	const release = "wagp"
	name := release + "-windows-aware-publish-ungate"
	objs := e.renderRelease(ns, release, "--set", "publish.enabled=true",
		"--set", "pluginArgs.imageResolution.scope=Windows", "--set", "pluginArgs.imageResolution.registries[0].host=registry.example.com")
	var policy string
	for _, obj := range objs {
		switch o := obj.(type) {
		case *v1.ServiceAccount:
			if o.Name == name {
				e.createObject(o)
			}
		case *rbacv1.ClusterRole, *rbacv1.ClusterRoleBinding:
			if obj.(metav1.Object).GetName() == name {
				e.createObject(o)
			}
		case *admissionregistrationv1.ValidatingAdmissionPolicy:
			if o.Name == name {
				policy = o.Name
				e.createObject(o)
			}
		case *admissionregistrationv1.ValidatingAdmissionPolicyBinding:
			if o.Name == name {
				e.createObject(o)
			}
		}
	}
	if policy == "" {
		t.Fatalf("the chart renders no admission policy %s", name)
	}
	remover := e.clientFor(e.serviceAccountToken(ns, name))
	probe := gatedPolicyPod("probe")
	e.createPod(ns, probe)
	e.waitAllowed(func() error {
		_, err := remover.CoreV1().Pods(ns).Get(e.ctx, probe.Name, metav1.GetOptions{})
		return err
	})
	e.waitPolicyLoaded(remover, ns, probe.Name, policy)

	const build = "node.kubernetes.io/windows-build"
	toleration := func(key string) map[string]any {
		return map[string]any{"op": "add", "path": "/spec/tolerations/-", "value": v1.Toleration{Key: key, Operator: v1.TolerationOpEqual, Value: "windows", Effect: v1.TaintEffectNoSchedule}}
	}
	annotate := map[string]any{"op": "add", "path": "/metadata/annotations", "value": map[string]string{wellknown.AnnotationPublished: `{"source":"registry","os":"windows"}`}}
	ungate := []map[string]any{
		{"op": "remove", "path": "/spec/schedulingGates"},
		{"op": "remove", "path": "/metadata/labels/windows-aware.x-k8s.io~1gated"},
	}
	published := append(append([]map[string]any{}, ungate...),
		map[string]any{"op": "add", "path": "/spec/nodeSelector", "value": map[string]string{v1.LabelOSStable: "windows"}},
		map[string]any{"op": "add", "path": "/spec/affinity", "value": v1.Affinity{NodeAffinity: &v1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
				MatchExpressions: []v1.NodeSelectorRequirement{{Key: build, Operator: v1.NodeSelectorOpIn, Values: []string{oracle.Build2022}}},
			}}},
		}}},
		toleration("os"), toleration("node.kubernetes.io/os"), annotate)
	with := func(base []map[string]any, extra ...map[string]any) []map[string]any {
		return append(append([]map[string]any{}, base...), extra...)
	}

	tests := []struct {
		name string
		// pod: gated (the gate and its label), label (the label of a gate
		// removed by hand), plain (never gated).
		pod     string
		patch   []map[string]any
		allowed bool
	}{
		{name: "ungate with the published constraints", pod: "gated", patch: published, allowed: true},
		{name: "ungate alone", pod: "gated", patch: ungate, allowed: true},
		{name: "remove the label of a gate removed by hand", pod: "label", patch: ungate[1:], allowed: true},
		{name: "tolerate a taint of another key with the value windows", pod: "gated", patch: with(published, toleration("example.com/dedicated"))},
		{name: "tolerate the control plane's taint key", pod: "gated", patch: with(ungate, toleration("node-role.kubernetes.io/control-plane"))},
		{name: "tolerate an OS taint on a pod never gated", pod: "plain", patch: []map[string]any{toleration("os")}},
		{name: "annotate a pod never gated", pod: "plain", patch: []map[string]any{annotate}},
		{name: "tolerate an OS taint on a pod whose gate is gone", pod: "label", patch: with(ungate[1:], toleration("os"))},
		{name: "annotate a pod whose gate is gone", pod: "label", patch: with(ungate[1:], annotate)},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := gatedPolicyPod(fmt.Sprintf("only-its-job-%d", i))
			switch tt.pod {
			case "label":
				pod.Spec.SchedulingGates = nil
			case "plain":
				pod.Spec.SchedulingGates = nil
				delete(pod.Labels, wellknown.LabelGated)
			}
			e.createPod(ns, pod)
			_, err := remover.CoreV1().Pods(ns).Patch(e.ctx, pod.Name, types.JSONPatchType, mustJSON(t, tt.patch), metav1.PatchOptions{})
			switch {
			case tt.allowed && err != nil:
				t.Errorf("refused: %v", err)
			case !tt.allowed && err == nil:
				got := e.getPod(ns, pod.Name)
				t.Errorf("allowed; the pod now has tolerations %v and annotations %v", got.Spec.Tolerations, got.Annotations)
			case !tt.allowed && !strings.Contains(err.Error(), policy):
				t.Errorf("refused, but not by the policy: %v", err)
			}
		})
	}
}

// gatedPolicyPod is a pod as the webhook gates it (the gate and its
// label), of a profile nothing serves, so that it stays as created.
func gatedPolicyPod(name string) *v1.Pod {
	pod := newPod(name, "no-such-scheduler", "registry.example.com/web:1")
	pod.Labels[wellknown.LabelGated] = "true"
	pod.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: wellknown.GatePlatform}}
	pod.Spec.Tolerations = []v1.Toleration{{Key: "existing", Operator: v1.TolerationOpExists}}
	return pod
}
