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

package chart

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
)

// uninstallName is the hook's Job, ServiceAccount, ClusterRole and
// admission policy.
const uninstallName = publishName + "-uninstall"

// TestChartPublishUninstallHook: when the webhook gates pods, helm
// uninstall first runs a Job that deletes the webhook configuration and
// removes every gate (admission ungate-all), under an identity of its own
// that exists for the hook alone and may do just that; without gates there
// is no hook.
func TestChartPublishUninstallHook(t *testing.T) {
	m := renderChart(t, besideNamespace, gatingValues)
	sa := get[*v1.ServiceAccount](t, m, "ServiceAccount", besideNamespace, uninstallName)
	role := get[*rbacv1.ClusterRole](t, m, "ClusterRole", "", uninstallName)
	bind := get[*rbacv1.ClusterRoleBinding](t, m, "ClusterRoleBinding", "", uninstallName)
	policy := get[*admissionregistrationv1.ValidatingAdmissionPolicy](t, m, "ValidatingAdmissionPolicy", "", uninstallName)
	policyBinding := get[*admissionregistrationv1.ValidatingAdmissionPolicyBinding](t, m, "ValidatingAdmissionPolicyBinding", "", uninstallName)
	job := get[*batchv1.Job](t, m, "Job", besideNamespace, uninstallName)

	// Hooks all: created for the uninstall only, the identity before the
	// Job, and deleted after it succeeds or before another try.
	weights := map[string]int{}
	for _, obj := range []struct {
		kind string
		obj  any
	}{{"ServiceAccount", sa}, {"ClusterRole", role}, {"ClusterRoleBinding", bind},
		{"ValidatingAdmissionPolicy", policy}, {"ValidatingAdmissionPolicyBinding", policyBinding}, {"Job", job}} {
		a, err := meta.Accessor(obj.obj)
		if err != nil {
			t.Fatal(err)
		}
		ann := a.GetAnnotations()
		if ann["helm.sh/hook"] != "pre-delete" {
			t.Errorf("%s: helm.sh/hook %q, want pre-delete", obj.kind, ann["helm.sh/hook"])
		}
		policies := strings.Split(ann["helm.sh/hook-delete-policy"], ",")
		if !slices.Contains(policies, "before-hook-creation") || !slices.Contains(policies, "hook-succeeded") {
			t.Errorf("%s: helm.sh/hook-delete-policy %q, want before-hook-creation and hook-succeeded", obj.kind, ann["helm.sh/hook-delete-policy"])
		}
		w, err := strconv.Atoi(ann["helm.sh/hook-weight"])
		if err != nil {
			t.Errorf("%s: helm.sh/hook-weight %q", obj.kind, ann["helm.sh/hook-weight"])
		}
		weights[obj.kind] = w
	}
	for _, kind := range []string{"ServiceAccount", "ClusterRole", "ClusterRoleBinding", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"} {
		if weights[kind] >= weights["Job"] {
			t.Errorf("the %s (weight %d) is not created before the Job (weight %d)", kind, weights[kind], weights["Job"])
		}
	}

	// Least privilege: the gated pods and the webhook configuration by
	// name, nothing else.
	webhook := get[*admissionregistrationv1.MutatingWebhookConfiguration](t, m, "MutatingWebhookConfiguration", "", publishWebhook)
	want := []string{"get /pods", "list /pods", "patch /pods", "delete admissionregistration.k8s.io/mutatingwebhookconfigurations/" + webhook.Name}
	if diff := cmp.Diff(want, ruleAtoms(role.Rules), cmpSorted); diff != "" {
		t.Errorf("the hook's rules (-want +got):\n%s", diff)
	}
	wantBinding := &binding{
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa.Name, Namespace: besideNamespace}},
	}
	if diff := cmp.Diff(wantBinding, bindingOf(bind)); diff != "" {
		t.Errorf("the hook's binding (-want +got):\n%s", diff)
	}
	// Its right to patch pods is held to removing the gate, by a policy
	// that applies to its account alone and denies (what the pods may
	// become is tested on the API server, test/integration).
	wantMatch := "request.userInfo.username == 'system:serviceaccount:" + besideNamespace + ":" + sa.Name + "'"
	if len(policy.Spec.MatchConditions) != 1 || policy.Spec.MatchConditions[0].Expression != wantMatch {
		t.Errorf("the hook's policy matches %+v, want %s alone", policy.Spec.MatchConditions, wantMatch)
	}
	if policy.Spec.FailurePolicy == nil || *policy.Spec.FailurePolicy != admissionregistrationv1.Fail ||
		policyBinding.Spec.PolicyName != policy.Name || !slices.Equal(policyBinding.Spec.ValidationActions, []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}) {
		t.Errorf("the hook's policy does not deny: failurePolicy %v, binding %+v", policy.Spec.FailurePolicy, policyBinding.Spec)
	}
	if sa.AutomountServiceAccountToken == nil || *sa.AutomountServiceAccountToken {
		t.Error("the hook's ServiceAccount mounts a token into every pod that runs as it")
	}
	for _, key := range m.keys() {
		if b := bindingOf(m[key]); b != nil && key != objectKey("ClusterRoleBinding", "", uninstallName) {
			for _, s := range b.Subjects {
				if s.Name == sa.Name {
					t.Errorf("%s binds more to the hook's account", key)
				}
			}
		}
	}

	// The Job: bounded, the admission binary's ungate-all on the webhook
	// configuration the chart renders, under the hook's account, left
	// alone by the release's own webhooks.
	spec := job.Spec.Template.Spec
	if job.Spec.ActiveDeadlineSeconds == nil || *job.Spec.ActiveDeadlineSeconds != 240 {
		t.Errorf("activeDeadlineSeconds %v, want 240", job.Spec.ActiveDeadlineSeconds)
	}
	if job.Spec.BackoffLimit == nil || *job.Spec.BackoffLimit > 3 {
		t.Errorf("backoffLimit %v", job.Spec.BackoffLimit)
	}
	if spec.ServiceAccountName != sa.Name || spec.AutomountServiceAccountToken == nil || !*spec.AutomountServiceAccountToken {
		t.Errorf("the Job runs as %q (token %v), want %s with its token", spec.ServiceAccountName, spec.AutomountServiceAccountToken, sa.Name)
	}
	if spec.RestartPolicy != v1.RestartPolicyNever {
		t.Errorf("restartPolicy %s", spec.RestartPolicy)
	}
	if len(spec.Containers) != 1 {
		t.Fatalf("%d containers", len(spec.Containers))
	}
	c := spec.Containers[0]
	webhookPod := get[*appsv1.Deployment](t, m, "Deployment", besideNamespace, publishName).Spec.Template.Spec
	if c.Image != webhookPod.Containers[0].Image {
		t.Errorf("image %s, want the webhook's %s", c.Image, webhookPod.Containers[0].Image)
	}
	wantCommand := []string{"/admission", "ungate-all", "--webhook-configuration=" + webhook.Name, "--timeout=210s"}
	if diff := cmp.Diff(wantCommand, c.Command); diff != "" {
		t.Errorf("command (-want +got):\n%s", diff)
	}
	if l := job.Spec.Template.Labels; l["windows-aware.x-k8s.io/publish"] != "false" || l["windows-aware.x-k8s.io/opt-in"] != "false" {
		t.Errorf("the hook's pod is not opted out of the release's webhooks: %v", l)
	}
	if spec.NodeSelector[v1.LabelOSStable] != "linux" {
		t.Errorf("nodeSelector %v", spec.NodeSelector)
	}
	if sc := c.SecurityContext; sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		t.Errorf("container securityContext %+v", sc)
	}
	if sc := spec.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		t.Errorf("pod securityContext %+v", sc)
	}
	if c.Resources.Limits.Memory().IsZero() {
		t.Error("no memory limit")
	}

	// Its values.
	m = renderChart(t, besideNamespace, gatingValues, `publish: {uninstallHook: {activeDeadlineSeconds: 600, extraArgs: [--v=2], podAnnotations: {a: b}}}`)
	job = get[*batchv1.Job](t, m, "Job", besideNamespace, uninstallName)
	if *job.Spec.ActiveDeadlineSeconds != 600 || !slices.Contains(job.Spec.Template.Spec.Containers[0].Command, "--timeout=570s") ||
		!slices.Contains(job.Spec.Template.Spec.Containers[0].Command, "--v=2") || job.Spec.Template.Annotations["a"] != "b" {
		t.Errorf("values not followed: deadline %d, command %v, annotations %v", *job.Spec.ActiveDeadlineSeconds,
			job.Spec.Template.Spec.Containers[0].Command, job.Spec.Template.Annotations)
	}

	// No gates, no hook.
	for name, values := range map[string][]string{
		"publish off":    {gatingValues, `publish: {enabled: false}`},
		"no gateTimeout": {gatingValues, `pluginArgs: {imageResolution: {gateTimeout: 0s}}`},
		"hook off":       {gatingValues, `publish: {uninstallHook: {enabled: false}}`},
	} {
		m := renderChart(t, besideNamespace, values...)
		for _, key := range m.keys() {
			if strings.HasSuffix(key, "/"+uninstallName) {
				t.Errorf("%s: renders %s", name, key)
			}
		}
	}

	// The schema: a deadline too short to list anything is refused.
	if _, err := helmTemplate(t, besideNamespace, gatingValues, `publish: {uninstallHook: {activeDeadlineSeconds: 5}}`); err == nil ||
		!strings.Contains(err.Error(), "activeDeadlineSeconds") {
		t.Errorf("a 5s deadline: %v", err)
	}
}
