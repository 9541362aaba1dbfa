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

# Sourced by the hack scripts that compile (demo.sh, bench.sh, upstream.sh,
# fuzz.sh): compile as the Makefile does, static and with paths trimmed,
# so that the Go build cache serves them what make build, the tests and
# the tools (hack/build-tools.sh) compiled, run from make or not. With the
# defaults (cgo on, full paths) each would compile Kubernetes once more.
export CGO_ENABLED=${CGO_ENABLED:-0}
case " ${GOFLAGS:-} " in
  *" -trimpath "*) ;;
  *) export GOFLAGS="${GOFLAGS:+$GOFLAGS }-trimpath" ;;
esac

# Upstream's test API server (k8s.io/kubernetes/cmd/kube-apiserver/app/testing,
# which scheduler_perf starts) finds its certificate fixtures beside its own
# source file, a path -trimpath leaves relative to the module cache. It
# takes the base of such paths from TEST_SRCDIR and TEST_WORKSPACE (read
# for Bazel, which trims paths too): the module cache, here. Its log then
# says it "detected bazel env variables".
if [[ -z ${TEST_SRCDIR:-} ]]; then
  export TEST_SRCDIR TEST_WORKSPACE=.
  TEST_SRCDIR=$("${GO:-go}" env GOMODCACHE)
fi
