//go:build k8s1_35

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

import rbacv1 "k8s.io/api/rbac/v1"

// rulesOfNewerMinors: what the stock scheduler roles of the newest minor
// (1.37) grant beyond 1.35's. The shipped ClusterRole is 1.37's and serves
// the older minors too; granting them these is harmless.
var rulesOfNewerMinors = []rbacv1.PolicyRule{
	{APIGroups: []string{"resource.k8s.io"}, Resources: []string{"devicetaintrules"}, Verbs: []string{"get", "list", "watch"}},
	// DRAExtendedResource and DRAResourceClaimGranularStatusAuthorization,
	// alpha and off in 1.35, are beta and on from 1.36.
	{APIGroups: []string{"resource.k8s.io"}, Resources: []string{"resourceclaims"}, Verbs: []string{"create", "delete"}},
	{APIGroups: []string{"resource.k8s.io"}, Resources: []string{"resourceclaims/binding"}, Verbs: []string{"patch", "update"}},
}
