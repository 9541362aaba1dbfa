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
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/windows-aware/windows-aware/internal/manifest"
)

// TestGateRBAC holds manifests/publish-gate/rbac.yaml to what removing
// gates takes: the Lease the binary stands for by default, and pods
// updated, not patched or deleted.
func TestGateRBAC(t *testing.T) {
	objs, err := manifest.ReadFile(filepath.Join("..", "..", "manifests", "publish-gate", "rbac.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	lease := newCommand().Flags().Lookup("leader-elect-resource-name").DefValue
	var leaseNamed, podsUpdated bool
	for _, o := range objs {
		var rules []rbacv1.PolicyRule
		switch o := o.(type) {
		case *rbacv1.ClusterRole:
			rules = o.Rules
		case *rbacv1.Role:
			rules = o.Rules
		}
		for _, r := range rules {
			if slices.Contains(r.Resources, "leases") && slices.Contains(r.Verbs, "update") {
				leaseNamed = slices.Equal(r.ResourceNames, []string{lease})
			}
			if slices.Contains(r.Resources, "pods") {
				podsUpdated = slices.Contains(r.Verbs, "update")
				if slices.Contains(r.Verbs, "delete") || slices.Contains(r.Verbs, "patch") || slices.Contains(r.Verbs, "*") {
					t.Errorf("pods verbs %v: more than removing gates takes", r.Verbs)
				}
			}
		}
	}
	if !leaseNamed {
		t.Errorf("no rule updates the Lease %q alone", lease)
	}
	if !podsUpdated {
		t.Errorf("no rule updates pods")
	}
}
