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

package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/windows-aware/windows-aware/internal/manifest"
)

// TestGateRBAC holds manifests/publish-gate to least privilege: the gate
// remover runs in its own Deployment (--webhook=false --ungate) under a
// ServiceAccount of its own, which may list the pods of every namespace
// (its sweep finds the gated pods without the label so) and patch pods
// (not update or delete them), and hold the Lease the binary stands for by default; the webhook's
// ServiceAccount gets no right on pods; and the shipped
// ValidatingAdmissionPolicy binds to the gate remover's identity, with Deny.
func TestGateRBAC(t *testing.T) {
	dir := filepath.Join("..", "..", "manifests", "publish-gate")
	var objs []any
	for _, f := range []string{"rbac.yaml", "serviceaccount.yaml", "deployment.yaml", "policy.yaml"} {
		got, err := manifest.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range got {
			objs = append(objs, o)
		}
	}
	lease := newCommand().Flags().Lookup("leader-elect-resource-name").DefValue
	const remover = "windows-aware-publish-ungate"
	var leaseNamed, podsListed, podsPatched, deployed, policyBound bool
	roles := map[string][]rbacv1.PolicyRule{}
	for _, o := range objs {
		switch o := o.(type) {
		case *rbacv1.ClusterRole:
			roles["ClusterRole/"+o.Name] = o.Rules
		case *rbacv1.Role:
			roles["Role/"+o.Name] = o.Rules
		}
	}
	for _, o := range objs {
		switch o := o.(type) {
		case *rbacv1.ClusterRoleBinding, *rbacv1.RoleBinding:
			var ref rbacv1.RoleRef
			var subjects []rbacv1.Subject
			switch b := o.(type) {
			case *rbacv1.ClusterRoleBinding:
				ref, subjects = b.RoleRef, b.Subjects
			case *rbacv1.RoleBinding:
				ref, subjects = b.RoleRef, b.Subjects
			}
			for _, s := range subjects {
				if s.Name != remover {
					t.Errorf("%s/%s grants removing gates to %s, not to the gate remover's ServiceAccount", ref.Kind, ref.Name, s.Name)
				}
			}
			for _, r := range roles[ref.Kind+"/"+ref.Name] {
				if slices.Contains(r.Resources, "leases") && slices.Contains(r.Verbs, "update") {
					leaseNamed = slices.Equal(r.ResourceNames, []string{lease})
				}
				if slices.Contains(r.Resources, "pods") {
					podsPatched = slices.Contains(r.Verbs, "patch")
					podsListed = podsListed || ref.Kind == "ClusterRole" && slices.Contains(r.Verbs, "list")
					for _, v := range []string{"update", "delete", "create", "*"} {
						if slices.Contains(r.Verbs, v) {
							t.Errorf("pods verbs %v: more than removing gates takes", r.Verbs)
						}
					}
				}
			}
		case *appsv1.Deployment:
			spec := o.Spec.Template.Spec
			args := strings.Join(spec.Containers[0].Command, " ")
			deployed = spec.ServiceAccountName == remover && strings.Contains(args, "--webhook=false") && strings.Contains(args, "--ungate")
			if !deployed {
				t.Errorf("Deployment %s runs %q as %s, want --webhook=false --ungate as %s", o.Name, args, spec.ServiceAccountName, remover)
			}
		case *admissionregistrationv1.ValidatingAdmissionPolicy:
			if len(o.Spec.MatchConditions) != 1 || !strings.Contains(o.Spec.MatchConditions[0].Expression, "'system:serviceaccount:kube-system:"+remover+"'") {
				t.Errorf("policy %s matches %+v, not the gate remover", o.Name, o.Spec.MatchConditions)
			}
			if *o.Spec.FailurePolicy != admissionregistrationv1.Fail {
				t.Errorf("policy %s fails open", o.Name)
			}
		case *admissionregistrationv1.ValidatingAdmissionPolicyBinding:
			policyBound = o.Spec.PolicyName == remover && slices.Equal(o.Spec.ValidationActions, []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny})
		}
	}
	if !leaseNamed {
		t.Errorf("no rule updates the Lease %q alone", lease)
	}
	if !podsPatched {
		t.Errorf("no rule patches pods")
	}
	if !podsListed {
		t.Errorf("no ClusterRole lists the pods of every namespace")
	}
	if !deployed || !policyBound {
		t.Errorf("gate remover deployed %v, its policy bound with Deny %v", deployed, policyBound)
	}
}
