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

// Package chart holds the tests of what the project ships for a cluster to
// run: the Helm chart charts/windows-aware-scheduler, rendered by helm
// template, and the manifests of manifests/. They hold the chart to
// manifests/beside and manifests/publish, its RBAC to the stock
// scheduler's, its values schema to the plugin's args, and every shipped
// scheduler configuration to what the scheduler accepts: each is set up
// with kube-scheduler's own flag parsing, defaulting, validation and plugin
// construction, with the plugins of cmd/scheduler/app, as the binary
// sets itself up at start.
//
// They sit outside the chart's directory, which helm packages whole, and
// outside cmd/scheduler, whose tests are of the binary alone. The tests
// that render the chart need helm: $HELM, else bin/tools/helm (make
// verify-chart builds it and fails when it is missing), else helm on PATH;
// without one they are skipped. TestChartPermissionsTable with
// -update-permissions rewrites the permissions table of docs/security.md.
//
// What the stock scheduler roles grant differs between Kubernetes minors:
// rbac_minor*_test.go, one per minor by its build tag (hack/k8s.sh).
package chart
