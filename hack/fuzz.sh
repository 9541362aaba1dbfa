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

# Runs fuzz targets: make test-fuzz (a short run of each) and make fuzz-long
# (each to a number of executions).
#
#   hack/fuzz.sh <fuzztime> <package:Target>...
#
# fuzztime is what go test -fuzztime takes: a duration (15s) or a count of
# executions (10000000x).
#
# Why not plain `go test -fuzz`: it instruments every package the test
# binary links for coverage guidance, and after each execution the fuzzing
# engine clears and scans one counter per instrumented edge. Our packages
# link the scheduler framework, client-go and the API types, so that scan,
# not the code under test, set the pace: 1,000 to 2,000 executions a second
# per worker for the plugin's targets, and about as many for a target that
# does nothing in the same package. Instrumenting what the targets exercise
# runs them 8 to 15 times as fast (FuzzFilterFollowsDecision: 34,000 a
# second on two workers instead of 2,500). This script builds each
# package's test binary with the instrumentation go test -fuzz uses
# (-d=libfuzzer) on the packages whose branches the targets exercise (ours,
# and the parsers they feed their input to; INSTRUMENT) and runs the
# binary's own fuzzing engine with go test's corpus cache, so that the
# corpus carries over between the two ways. The engine, its mutator, the
# seed corpus in testdata/fuzz and the failing-input files it writes there
# are go test's own.
#
# Knobs (environment):
#   GO                 the go command                     (go)
#   BIN_DIR            where the test binaries go         (bin)/fuzz
#   FUZZMINIMIZETIME   -fuzzminimizetime                  (2000x)
#   FUZZ_PARALLEL      fuzzing workers                    (GOMAXPROCS)
#   INSTRUMENT         package patterns to instrument     (below)

set -euo pipefail

if [[ $# -lt 2 ]]; then
  echo "usage: $0 <fuzztime> <package:Target>..." >&2
  exit 2
fi

root=$(cd "$(dirname "$0")/.." && pwd)
cd "${root}"
# shellcheck source=hack/goenv.sh
source hack/goenv.sh

GO=${GO:-go}
BIN_DIR=${BIN_DIR:-${root}/bin}
FUZZMINIMIZETIME=${FUZZMINIMIZETIME:-2000x}
module=$(${GO} list -m)
# The registry client's transport parses WWW-Authenticate challenges and
# error bodies for FuzzTokenRealm and FuzzErrorDetail: instrumented, so
# that the engine sees the parser's branches.
INSTRUMENT=${INSTRUMENT:-"${module}/... github.com/distribution/reference github.com/google/go-containerregistry/pkg/v1/remote/transport sigs.k8s.io/yaml/... sigs.k8s.io/json/... k8s.io/apimachinery/pkg/util/yaml encoding/json encoding/pem crypto/x509"}
cache=$(${GO} env GOCACHE)/fuzz

fuzztime=$1
shift

gcflags=()
for pattern in ${INSTRUMENT}; do
  gcflags+=("-gcflags=${pattern}=-d=libfuzzer")
done

mkdir -p "${BIN_DIR}/fuzz"
built=""
for target in "$@"; do
  pkg=${target%%:*}
  name=${target#*:}
  importpath=$(${GO} list "${pkg}")
  binary="${BIN_DIR}/fuzz/$(echo "${importpath#"${module}/"}" | tr / _).test"
  if [[ " ${built} " != *" ${pkg} "* ]]; then
    ${GO} test -c -o "${binary}" "${gcflags[@]}" "${pkg}"
    built="${built} ${pkg}"
  fi
  echo "fuzz ${importpath} ${name} for ${fuzztime}"
  dir=$(${GO} list -f '{{.Dir}}' "${pkg}")
  (
    cd "${dir}"
    "${binary}" -test.run '^$' -test.fuzz "^${name}\$" -test.fuzztime "${fuzztime}" \
      -test.fuzzminimizetime "${FUZZMINIMIZETIME}" -test.fuzzcachedir "${cache}/${importpath}" \
      ${FUZZ_PARALLEL:+-test.parallel "${FUZZ_PARALLEL}"}
  )
done
