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

# Fails when a tracked source file (Go, shell, Makefile, Dockerfile, the CI
# script) lacks the Apache-2.0 licence header of hack/boilerplate.go.txt.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=$(git ls-files -co --exclude-standard '*.go' '*.sh' Makefile Dockerfile .ci/run \
  | while read -r f; do [ -f "$f" ] && ! grep -q 'Licensed under the Apache License, Version 2.0' "$f" && echo "$f"; done || true)
if [ -n "$missing" ]; then
  echo "these files lack the licence header (copy it from hack/boilerplate.go.txt):" >&2
  echo "$missing" >&2
  exit 1
fi
