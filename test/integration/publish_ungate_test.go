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
	"fmt"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"

	"github.com/windows-aware/windows-aware/internal/oracle"
	"github.com/windows-aware/windows-aware/internal/registryserver"
	"github.com/windows-aware/windows-aware/internal/testimage"
	"github.com/windows-aware/windows-aware/pkg/publish"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// TestUngatePolicy holds the shipped ValidatingAdmissionPolicy of
// manifests/publish-gate to its word on the real API server: the gate
// remover's identity (impersonated) may remove our gate and its label and
// add the published constraints, and nothing else; the same changes by
// another identity are not its business.
func TestUngatePolicy(t *testing.T) {
	e := requireCluster(t)
	ns := e.namespace()
	remover := e.clientOf(e.applyUngateRBAC())
	const build = "node.kubernetes.io/windows-build"
	published := []map[string]any{
		{"op": "remove", "path": "/spec/schedulingGates"},
		{"op": "remove", "path": "/metadata/labels/windows-aware.x-k8s.io~1gated"},
		{"op": "add", "path": "/spec/nodeSelector", "value": map[string]string{v1.LabelOSStable: "windows"}},
		{"op": "add", "path": "/spec/affinity", "value": v1.Affinity{NodeAffinity: &v1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
				MatchExpressions: []v1.NodeSelectorRequirement{{Key: build, Operator: v1.NodeSelectorOpIn, Values: []string{oracle.Build2022, "10.0.26100"}}},
			}}},
			PreferredDuringSchedulingIgnoredDuringExecution: []v1.PreferredSchedulingTerm{{Weight: 100, Preference: v1.NodeSelectorTerm{
				MatchExpressions: []v1.NodeSelectorRequirement{{Key: build, Operator: v1.NodeSelectorOpIn, Values: []string{oracle.Build2022}}},
			}}},
		}}},
		{"op": "add", "path": "/spec/tolerations/-", "value": v1.Toleration{Key: "os", Operator: v1.TolerationOpEqual, Value: "windows", Effect: v1.TaintEffectNoSchedule}},
		{"op": "add", "path": "/metadata/annotations", "value": map[string]string{wellknown.AnnotationPublished: `{"source":"registry","os":"windows"}`}},
	}
	with := func(extra ...map[string]any) []map[string]any {
		return append(append([]map[string]any{}, published...), extra...)
	}

	tests := []struct {
		name    string
		patch   []map[string]any
		admin   bool // sent by the admin, not the gate remover
		allowed bool
	}{
		{name: "ungate with the published constraints", patch: published, allowed: true},
		{name: "ungate alone", patch: published[:2], allowed: true},
		{name: "the label alone, for a gate removed by hand", patch: published[1:2], allowed: true},
		{name: "change an image", patch: with(map[string]any{"op": "replace", "path": "/spec/containers/0/image", "value": "evil.example.com/miner:1"})},
		{name: "add a label", patch: with(map[string]any{"op": "add", "path": "/metadata/labels/team", "value": "b"})},
		{name: "change a label", patch: with(map[string]any{"op": "replace", "path": "/metadata/labels/test-pod", "value": "other"})},
		{name: "add another annotation", patch: with(map[string]any{"op": "add", "path": "/metadata/annotations/note", "value": "x"})},
		{name: "remove another gate", patch: []map[string]any{{"op": "replace", "path": "/spec/schedulingGates", "value": []any{}}}},
		{name: "add an unrelated required affinity expression", patch: []map[string]any{published[0], {"op": "add", "path": "/spec/affinity", "value": v1.Affinity{NodeAffinity: &v1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
				MatchExpressions: []v1.NodeSelectorRequirement{{Key: "pool", Operator: v1.NodeSelectorOpIn, Values: []string{"attacker"}}},
			}}},
		}}}}},
		{name: "add an unrelated preferred term", patch: []map[string]any{published[0], {"op": "add", "path": "/spec/affinity", "value": v1.Affinity{NodeAffinity: &v1.NodeAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []v1.PreferredSchedulingTerm{{Weight: 100, Preference: v1.NodeSelectorTerm{
				MatchExpressions: []v1.NodeSelectorRequirement{{Key: "pool", Operator: v1.NodeSelectorOpIn, Values: []string{"attacker"}}},
			}}},
		}}}}},
		{name: "add another node selector", patch: []map[string]any{published[0], {"op": "add", "path": "/spec/nodeSelector", "value": map[string]string{"pool": "attacker"}}}},
		{name: "tolerate everything", patch: []map[string]any{published[0], {"op": "add", "path": "/spec/tolerations/-", "value": v1.Toleration{Operator: v1.TolerationOpExists}}}},
		{name: "tolerate NoExecute", patch: []map[string]any{published[0], {"op": "add", "path": "/spec/tolerations/-", "value": v1.Toleration{Key: "os", Operator: v1.TolerationOpEqual, Value: "windows", Effect: v1.TaintEffectNoExecute}}}},
		{name: "the admin adds a label: not the policy's business", patch: with(map[string]any{"op": "add", "path": "/metadata/labels/team", "value": "b"}), admin: true, allowed: true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := newPod(fmt.Sprintf("policy-%d", i), "no-such-scheduler", "registry.example.com/web:1")
			pod.Labels[wellknown.LabelGated] = "true"
			pod.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: wellknown.GatePlatform}}
			if strings.Contains(tt.name, "another gate") {
				pod.Spec.SchedulingGates = append(pod.Spec.SchedulingGates, v1.PodSchedulingGate{Name: "example.com/other"})
			}
			if strings.Contains(tt.name, "removed by hand") {
				pod.Spec.SchedulingGates = nil
			}
			pod.Spec.Tolerations = []v1.Toleration{{Key: "existing", Operator: v1.TolerationOpExists}}
			e.createPod(ns, pod)
			client := remover
			if tt.admin {
				client = e.client
			}
			data, err := json.Marshal(tt.patch)
			if err != nil {
				t.Fatal(err)
			}
			_, err = client.CoreV1().Pods(ns).Patch(e.ctx, pod.Name, types.JSONPatchType, data, metav1.PatchOptions{})
			switch {
			case tt.allowed && err != nil:
				t.Errorf("refused: %v", err)
			case !tt.allowed && err == nil:
				t.Errorf("allowed; the pod is now %+v", e.getPod(ns, pod.Name).Spec)
			case !tt.allowed && !strings.Contains(err.Error(), "windows-aware-publish-ungate"):
				t.Errorf("refused, but not by the policy: %v", err)
			}
		})
	}
}

// TestUngateRefused: when an admission policy of the cluster refuses the
// constraints the gate remover writes, the gate comes off alone, with a
// Warning Event that names the refusal, and the pod is not left gated.
func TestUngateRefused(t *testing.T) {
	requireRegistryBinary(t)
	e := requireCluster(t)
	reg := startRegistry(t, registryserver.Options{InMemory: true})
	ns := e.namespace()
	a, err := single(win(testimage.OSVersion2019)).Build()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Push(e.ctx, "contoso/refused:1", a); err != nil {
		t.Fatal(err)
	}
	// The cluster's own policy: no build affinity on pods of this
	// namespace, whoever writes it.
	e.createPolicy(ns, "no-build-affinity", "!has(object.spec.affinity)", "no node affinity in this namespace")

	cfgFile := writeGateSchedulerConfig(t, e, reg, mustFaultProxy(t, reg), "20s", "3s")
	e.startPublishWebhook(ns, webhookOptions{profile: profileGate, config: cfgFile})
	e.startGateRemover("refused", cfgFile, e.applyUngateRBAC())

	e.createPod(ns, gatePod("web", reg.Host+"/contoso/refused:1"))
	got := e.waitUngated(ns, "web")
	if got.Spec.Affinity != nil {
		t.Errorf("the refused affinity was written: %+v", got.Spec.Affinity)
	}
	refusals := e.waitEvents(ns, "web", "PublishRefused", scheduleTimeout)
	if len(refusals) != 1 || !strings.Contains(refusals[0], "no-build-affinity") || !strings.Contains(refusals[0], "removed the scheduling gate") {
		t.Errorf("PublishRefused Warning Events %q, want one naming the policy", refusals)
	}
}

// TestUngateAfterControllerKilled: a gate remover killed (SIGKILL, its
// Lease not released) while pods wait for a registry that does not answer:
// the next one to take the Lease ungates the pods, already older than
// gateTimeout, at once (their age counts, not its start), under onFailure.
func TestUngateAfterControllerKilled(t *testing.T) {
	requireRegistryBinary(t)
	e := requireCluster(t)
	reg := startRegistry(t, registryserver.Options{InMemory: true})
	slow := mustFaultProxy(t, reg)
	slow.Set(registryserver.Fault{Latency: 10 * time.Minute})
	ns := e.namespace()
	const gateTimeout = 10 * time.Second
	cfgFile := writeGateSchedulerConfig(t, e, reg, slow, gateTimeout.String(), "5m")
	kubeconfig := e.applyUngateRBAC()
	e.startPublishWebhook(ns, webhookOptions{profile: profileGate, config: cfgFile})
	// A Lease of an earlier test, released or not, is no holder of this one.
	if err := e.client.CoordinationV1().Leases("kube-system").Delete(e.ctx, "windows-aware-publish-ungate", metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	first := e.startGateRemover("first", cfgFile, kubeconfig)
	holder := e.waitLeaseHolder("")

	for _, name := range []string{"web-a", "web-b"} {
		created := e.createPod(ns, gatePod(name, slow.Host+"/contoso/slow:1"))
		if !publish.Gated(created) {
			t.Fatalf("pod %s was not gated", name)
		}
	}
	time.Sleep(2 * time.Second) // the first one is waiting for the registry
	first.Kill()
	e.startGateRemover("second", cfgFile, kubeconfig)
	e.waitLeaseHolder(holder) // after the killed one's Lease expires
	took := time.Now()
	for _, name := range []string{"web-a", "web-b"} {
		got := e.waitUngated(ns, name)
		if rec, err := wellknown.ParseRecord(got.Annotations[wellknown.AnnotationPublished]); err != nil || rec.Fallback != "TagRules" {
			t.Errorf("pod %s: record %+v (%v), want fallback TagRules", name, rec, err)
		}
	}
	// Both pods are older than gateTimeout when the second takes the
	// Lease: waiting a gateTimeout of its own is the fault.
	if d := time.Since(took); d >= gateTimeout {
		t.Errorf("the new Lease holder took %s to ungate pods gated longer than gateTimeout (%s)", d, gateTimeout)
	}
}

// TestUngatePodUpdatedMeanwhile: the pod is changed while the gate remover
// waits for its registry (a label and an annotation added, another gate
// removed); the gate comes off with the constraints written and none of
// those changes lost.
func TestUngatePodUpdatedMeanwhile(t *testing.T) {
	requireRegistryBinary(t)
	e := requireCluster(t)
	reg := startRegistry(t, registryserver.Options{InMemory: true})
	slow := mustFaultProxy(t, reg)
	slow.Set(registryserver.Fault{Latency: 3 * time.Second})
	ns := e.namespace()
	a, err := single(win(testimage.OSVersion2019)).Build()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Push(e.ctx, "contoso/meanwhile:1", a); err != nil {
		t.Fatal(err)
	}
	cfgFile := writeGateSchedulerConfig(t, e, reg, slow, "30s", "10s")
	e.startPublishWebhook(ns, webhookOptions{profile: profileGate, config: cfgFile})
	e.startGateRemover("meanwhile", cfgFile, e.applyUngateRBAC())

	pod := gatePod("web", slow.Host+"/contoso/meanwhile:1")
	pod.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "example.com/other"}}
	created := e.createPod(ns, pod)
	if !publish.Gated(created) {
		t.Fatal("the pod was not gated")
	}
	time.Sleep(time.Second) // read by the gate remover, which waits for the registry
	patch, _ := json.Marshal(map[string]any{
		"metadata": map[string]any{"labels": map[string]string{"team": "a"}, "annotations": map[string]string{"note": "kept"}},
		"spec":     map[string]any{"schedulingGates": []map[string]string{{"name": "example.com/other", "$patch": "delete"}}},
	})
	if _, err := e.client.CoreV1().Pods(ns).Patch(e.ctx, "web", types.StrategicMergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	got := e.waitUngated(ns, "web")
	if got.Labels["team"] != "a" || got.Annotations["note"] != "kept" || len(got.Spec.SchedulingGates) != 0 {
		t.Errorf("changes lost: labels %v, annotations %v, gates %v", got.Labels, got.Annotations, got.Spec.SchedulingGates)
	}
	if builds := requiredBuilds(got); len(builds) != 1 || builds[0] != oracle.Build2019 {
		t.Errorf("required builds %v, want [%s]", builds, oracle.Build2019)
	}
}

// clientOf is a client with kubeconfig's credentials.
func (e *env) clientOf(kubeconfig string) kubernetes.Interface {
	e.t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		e.t.Fatal(err)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	return client
}

// waitUngatePolicy waits until the API server enforces the gate remover's
// policy for kubeconfig's identity: a probe pod's label change is refused.
func (e *env) waitUngatePolicy(kubeconfig string) {
	e.t.Helper()
	client := e.clientOf(kubeconfig)
	ns := e.namespace()
	probe := newPod(fmt.Sprintf("ungate-policy-probe-%d", time.Now().UnixNano()%100000), "no-such-scheduler", "registry.example.com/probe:1")
	probe.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: wellknown.GatePlatform}}
	if _, err := e.client.CoreV1().Pods(ns).Create(e.ctx, probe, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	defer func() {
		_ = e.client.CoreV1().Pods(ns).Delete(context.Background(), probe.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
	}()
	patch := []byte(`{"metadata":{"labels":{"probe":"x"}}}`)
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := client.CoreV1().Pods(ns).Patch(e.ctx, probe.Name, types.MergePatchType, patch, metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}})
		if apierrors.IsForbidden(err) || apierrors.IsInvalid(err) {
			if strings.Contains(err.Error(), "windows-aware-publish-ungate") {
				return
			}
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("the gate remover's policy is not enforced after 30s (last answer: %v)", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// createPolicy creates a ValidatingAdmissionPolicy, bound with Deny to the
// pods of namespace ns, that refuses pod updates failing expression, and
// waits until it is enforced. Both are deleted when the test ends.
func (e *env) createPolicy(ns, name, expression, message string) {
	e.t.Helper()
	api := e.client.AdmissionregistrationV1()
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-" + ns},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
				},
			}}},
			Validations: []admissionregistrationv1.Validation{{Expression: expression, Message: message}},
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: policy.Name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        policy.Name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
			MatchResources: &admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{
				MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns},
			}},
		},
	}
	if _, err := api.ValidatingAdmissionPolicies().Create(e.ctx, policy, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		_ = api.ValidatingAdmissionPolicies().Delete(context.Background(), policy.Name, metav1.DeleteOptions{})
	})
	if _, err := api.ValidatingAdmissionPolicyBindings().Create(e.ctx, binding, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		_ = api.ValidatingAdmissionPolicyBindings().Delete(context.Background(), binding.Name, metav1.DeleteOptions{})
	})
	// Enforced once a dry-run update that fails the expression is refused.
	probe := newPod("policy-probe", "no-such-scheduler", "registry.example.com/probe:1")
	probe.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "example.com/probe"}}
	e.createPod(ns, probe)
	patch := []byte(`{"spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"x","operator":"Exists"}]}]}}}}}`)
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := e.client.CoreV1().Pods(ns).Patch(e.ctx, probe.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil && strings.Contains(err.Error(), policy.Name) {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("policy %s is not enforced after 30s (last answer: %v)", policy.Name, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitLeaseHolder waits until the gate remover's Lease in kube-system is
// held by someone other than not, and returns the holder.
func (e *env) waitLeaseHolder(not string) string {
	e.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		l, err := e.client.CoordinationV1().Leases("kube-system").Get(e.ctx, "windows-aware-publish-ungate", metav1.GetOptions{})
		if err == nil && l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity != "" && *l.Spec.HolderIdentity != not {
			return *l.Spec.HolderIdentity
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("no new holder of the gate remover's Lease after 60s (last: %v)", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// mustFaultProxy is a fault proxy in front of reg, closed when the test
// ends.
func mustFaultProxy(t *testing.T, reg *registryserver.Server) *registryserver.FaultProxy {
	t.Helper()
	p, err := reg.NewFaultProxy()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}
