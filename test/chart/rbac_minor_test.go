//go:build !k8s1_35 && !k8s1_36

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
// grant beyond this minor's. This is the newest minor.
var rulesOfNewerMinors []rbacv1.PolicyRule
