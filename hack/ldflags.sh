#!/bin/sh
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

# Prints the -ldflags that stamp the version into the scheduler binary; the
# Makefile and the Dockerfile both use it, so both binaries say the same.
#
# The Kubernetes version stays first (the scheduler derives its feature-gate
# emulation version from it) and this project's version follows as build
# metadata: v1.37.2+windows-aware.v0.1.0. It is the version of the Kubernetes
# minor built, K8S (default: the newest; see hack/k8s.sh).
#
# Environment: K8S, VERSION (default: the VERSION file), GIT_COMMIT (default:
# git rev-parse HEAD), GIT_TREE_STATE (clean or dirty), BUILD_DATE.
set -eu
cd "$(dirname "$0")/.."

kube_version=$(sh hack/k8s.sh version)
version=${VERSION:-$(cat VERSION)}
commit=${GIT_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
if [ -z "${GIT_TREE_STATE:-}" ]; then
  if git rev-parse HEAD >/dev/null 2>&1; then
    if [ -z "$(git status --porcelain 2>/dev/null)" ]; then GIT_TREE_STATE=clean; else GIT_TREE_STATE=dirty; fi
  else
    GIT_TREE_STATE=unknown
  fi
fi
build_date=${BUILD_DATE:-$(date -u +%Y-%m-%dT%H:%M:%SZ)}

major=$(echo "$kube_version" | sed -E 's/^v([0-9]+)\..*/\1/')
minor=$(echo "$kube_version" | sed -E 's/^v[0-9]+\.([0-9]+)\..*/\1/')
pkg=k8s.io/component-base/version
echo "-s -w" \
  "-X $pkg.gitVersion=$kube_version+windows-aware.$version" \
  "-X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor" \
  "-X $pkg.gitCommit=$commit -X $pkg.gitTreeState=$GIT_TREE_STATE" \
  "-X $pkg.buildDate=$build_date"
