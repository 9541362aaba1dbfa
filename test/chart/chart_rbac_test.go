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
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/component-helpers/auth/rbac/validation"
	"k8s.io/kubernetes/plugin/pkg/auth/authorizer/rbac/bootstrappolicy"
)

// stockSchedulerRules returns the rules of the stock scheduler's roles in
// the Kubernetes this binary is built from, with its default feature gates:
// the permissions a kube-scheduler of this version uses.
func stockSchedulerRules(t *testing.T) []rbacv1.PolicyRule {
	t.Helper()
	var rules []rbacv1.PolicyRule
	found := 0
	for _, r := range bootstrappolicy.ClusterRoles() {
		if r.Name == "system:kube-scheduler" || r.Name == "system:volume-scheduler" {
			rules = append(rules, r.Rules...)
			found++
		}
	}
	if found != 2 {
		t.Fatalf("found %d of the stock scheduler roles", found)
	}
	return rules
}

// isLeaderElection tells the rules on the stock scheduler's lease and on
// lease candidates, which the windows-aware scheduler must not have.
func isLeaderElection(r rbacv1.PolicyRule) bool {
	for _, g := range r.APIGroups {
		if g == "coordination.k8s.io" {
			return true
		}
	}
	return false
}

// TestRBACIsTheStockSchedulersLessItsLease: the ClusterRole of
// manifests/beside (and so of the chart, TestChartMatchesBeside) grants
// every permission of the stock scheduler's roles but leader election, and
// nothing more; the lease Role grants get and update on its own lease only.
func TestRBACIsTheStockSchedulersLessItsLease(t *testing.T) {
	beside := besideManifests(t)
	role := get[*rbacv1.ClusterRole](t, beside, "ClusterRole", "", besideRelease)

	var stock, stockLease []rbacv1.PolicyRule
	for _, r := range stockSchedulerRules(t) {
		if isLeaderElection(r) {
			stockLease = append(stockLease, r)
		} else {
			stock = append(stock, r)
		}
	}
	if len(stockLease) == 0 {
		t.Fatal("the stock roles grant no lease: the split below means nothing")
	}
	if ok, missing := validation.Covers(role.Rules, stock); !ok {
		t.Errorf("the scheduler lacks what the stock scheduler of this Kubernetes uses: %v", ruleAtoms(missing))
	}
	// One role serves every minor the tree builds: it may also grant what
	// the newest minor's stock scheduler has and this one's lacks.
	if ok, extra := validation.Covers(append(stock, rulesOfNewerMinors...), role.Rules); !ok {
		t.Errorf("the scheduler has more than the stock scheduler: %v", ruleAtoms(extra))
	}
	for _, atom := range ruleAtoms(role.Rules) {
		verb, resource, _ := strings.Cut(atom, " ")
		switch {
		case strings.HasPrefix(resource, "/secrets"), strings.HasPrefix(resource, "coordination.k8s.io/"):
			t.Errorf("ClusterRole grants %s", atom)
		case resource == "/nodes" && verb != "get" && verb != "list" && verb != "watch":
			t.Errorf("ClusterRole grants %s", atom)
		}
	}

	lease := get[*rbacv1.Role](t, beside, "Role", besideNamespace, besideRelease+":leader-election")
	want := []string{"get coordination.k8s.io/leases/" + besideRelease, "update coordination.k8s.io/leases/" + besideRelease}
	if got := ruleAtoms(lease.Rules); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("lease rules %v, want %v", got, want)
	}
}
