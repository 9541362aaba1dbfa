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

# make demo / make demo-down: a thin wrapper around hack/demo, a Go program.
#
#   hack/demo.sh up     build what is missing, start a local cluster with
#                       5,000 simulated nodes in the background, apply the
#                       Windows guide's workloads, print where they landed
#   hack/demo.sh down   stop everything up started, by pid
#
# DEMO_NODES=500 hack/demo.sh up runs a smaller cluster, same proportions.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=hack/goenv.sh
source hack/goenv.sh
GO=${GO:-go}
BIN_DIR=${BIN_DIR:-$ROOT/bin}

build_demo() {
  echo "[demo] building $BIN_DIR/demo"
  "$GO" build -buildvcs=false -o "$BIN_DIR/demo" ./hack/demo
}

# build_all builds what the demo runs of this repository in one go build,
# which links them side by side: the scheduler, the admission webhook and
# the kubectl plugin as make build does, and the demo program.
build_all() {
  echo "[demo] building $BIN_DIR/scheduler, $BIN_DIR/admission, $BIN_DIR/kubectl-windows_aware and $BIN_DIR/demo"
  mkdir -p "$BIN_DIR"
  GOGC=${BUILD_GOGC:-400} "$GO" build -ldflags "$(hack/ldflags.sh)" -o "$BIN_DIR/" \
    ./cmd/scheduler ./cmd/admission ./cmd/kubectl-windows_aware ./hack/demo
}

case ${1:-up} in
  up)
    # The tools first, once, with their estimated times (the binaries'
    # build then reuses most of what kube-apiserver's compiled); only the
    # tools the demo runs: not helm, nor karpenter-kwok.
    # shellcheck disable=SC2086 # a list of names
    hack/build-tools.sh ${DEMO_TOOLS:-etcd kube-apiserver kubectl demo-controllers kwok registry}
    build_all
    # The tools the demo runs are found in bin/tools.
    export PATH="${TOOLS_DIR:-$BIN_DIR/tools}:$PATH" WINDOWS_AWARE_BIN_DIR="$BIN_DIR"
    exec "$BIN_DIR/demo" up
    ;;
  down)
    [[ -x $BIN_DIR/demo ]] || build_demo
    exec "$BIN_DIR/demo" down
    ;;
  *)
    echo "usage: $0 up|down" >&2
    exit 2
    ;;
esac
