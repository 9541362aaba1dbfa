#!/usr/bin/env bash
# Copyright The windows-aware Authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

# Regenerates the deep-copy, conversion and defaulting code of the plugin
# args API (pkg/apis/config) with the Kubernetes code generators, pinned to
# the Kubernetes release the project builds against.
set -euo pipefail
cd "$(dirname "$0")/.."

CODEGEN_VERSION=v0.37.2
boilerplate=hack/boilerplate.go.txt
pkg=github.com/windows-aware/windows-aware/pkg/apis/config

echo ">> deepcopy-gen"
go run "k8s.io/code-generator/cmd/deepcopy-gen@${CODEGEN_VERSION}" \
  --go-header-file "$boilerplate" --output-file zz_generated.deepcopy.go \
  "$pkg" "$pkg/v1"
echo ">> conversion-gen"
go run "k8s.io/code-generator/cmd/conversion-gen@${CODEGEN_VERSION}" \
  --go-header-file "$boilerplate" --output-file zz_generated.conversion.go \
  "$pkg/v1"
echo ">> defaulter-gen"
go run "k8s.io/code-generator/cmd/defaulter-gen@${CODEGEN_VERSION}" \
  --go-header-file "$boilerplate" --output-file zz_generated.defaults.go \
  "$pkg/v1"
