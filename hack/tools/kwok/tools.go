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

// Package kwok pins sigs.k8s.io/kwok, which hack/build-tools.sh builds into
// bin/tools/kwok. It is a module of its own so that kwok's other
// dependencies do not move the tools module's versions; its Kubernetes
// modules (kwok v0.8.0 asks for v0.36) are raised to the product's, so
// that its build reuses what kube-apiserver's compiled (internal/toolsmod
// holds them there).
package kwok

import _ "sigs.k8s.io/kwok/cmd/kwok"
