//go:build tools

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

// Package promtool pins github.com/prometheus/prometheus, whose promtool
// hack/build-tools.sh builds into bin/tools/promtool: make test-rules runs
// `promtool test rules` on the alerting rules of manifests/monitoring, so
// that a rule whose expression is broken, or that stays silent on a sample
// where no scheduler serves the profile, fails the tests. It is a module
// of its own because Prometheus requires its own Kubernetes client
// libraries, which must not meet the tools module's staging replaces.
package promtool

import _ "github.com/prometheus/prometheus/cmd/promtool"
