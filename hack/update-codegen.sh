#!/usr/bin/env bash
# Regenerates the deep-copy, conversion and defaulting code of the plugin
# args API (pkg/apis/config) with the Kubernetes code generators, pinned to
# the Kubernetes release the project builds against.
set -euo pipefail
cd "$(dirname "$0")/.."

CODEGEN_VERSION=v0.37.1
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
