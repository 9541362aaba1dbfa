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

// Package helm pins helm.sh/helm/v4, which hack/build-tools.sh builds into
// bin/tools/helm for the chart's lint, template and install checks. It is a
// module of its own because Helm requires its own Kubernetes client
// libraries, which must not meet the tools module's v1.37 staging replaces.
package helm

import _ "helm.sh/helm/v4/cmd/helm"
