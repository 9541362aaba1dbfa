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

# Upstream's own scheduler_perf workloads, run with the windows-aware
# plugins enabled in the profile their pods use (test/upstream).
#
#   hack/upstream.sh test    make test-upstream: the workloads upstream
#                            labels integration-test (and not performance),
#                            with the plugins: every pod scheduled, no error.
#   hack/upstream.sh bench   make bench-upstream: the workloads labelled
#                            performance, each with the stock profile and
#                            then with the plugins, and a table of their
#                            throughputs side by side (benchstat), with
#                            windows-aware's ratio to stock by upstream's
#                            average, by the span of the measured pods and
#                            by the scheduler's CPU per pod (ratio.txt; the
#                            rounds' CPU profiles are kept beside it).
#
# Environment:
#   GO               go command                              (go)
#   TOOLS_DIR        where etcd is                           (bin/tools)
#   UPSTREAM_OUT     results root                            (_output/upstream)
#   UPSTREAM_LABELS  the harness's label filter              (test: integration-test,-performance;
#                                                             bench: performance)
#   UPSTREAM_JOBS    test: processes run side by side, each with its share
#                    of the packages (-shard): a workload spends most of
#                    its seconds starting and stopping its own etcd and
#                    API server, which leaves the cores idle      (2)
#   UPSTREAM_BENCH   -bench pattern, e.g. 'BenchmarkUpstream/misc/' for one package,
#                    or 'sample': one 5,000-node workload (or the largest
#                    below that) of each kind of scheduling the plugins could
#                    slow: basic, node and pod (anti-)affinity, topology
#                    spreading, taints, preemption, volumes, node updates;
#                    or 'test-sample' (test): every workload of those kinds
#                    that the label filter selects      (BenchmarkUpstream)
#   UPSTREAM_COUNT   bench: rounds, each running every workload in both variants,
#                    stock first in odd rounds, windows-aware first in even (1)
#
# The harness changes with every Kubernetes minor: only the newest one
# (hack/k8s.sh newest) runs these.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=hack/goenv.sh
source hack/goenv.sh
GO=${GO:-go}
TOOLS_DIR=${TOOLS_DIR:-$ROOT/bin/tools}
OUT_ROOT=${UPSTREAM_OUT:-$ROOT/_output/upstream}
BENCH=${UPSTREAM_BENCH:-BenchmarkUpstream}
# The sample set: -bench matches each /-separated level on its own, so the
# anchors keep 5000Nodes from matching 5000Nodes_5000Pods.
SAMPLE_PACKAGES='^(misc|affinity|topology_spreading|default_preemption|volumes|event_handling)$'
SAMPLE_CASES='^(SchedulingBasic|SchedulingNodeAffinity|SchedulingPodAntiAffinity|TopologySpreading|SchedulingWithNodeInclusionPolicy|PreemptionBasic|SchedulingCSIPVs|SchedulingSecrets|EventHandlingNodeUpdate)$'
SAMPLE_WORKLOADS='^(5000Nodes|5000Nodes_10000Pods|5000Nodes_2000Pods|1000Nodes|100Nodes_1000Pods)$'
if [[ $BENCH == sample ]]; then
  BENCH="BenchmarkUpstream/$SAMPLE_PACKAGES/plugins=/$SAMPLE_CASES/$SAMPLE_WORKLOADS"
fi
# test-sample: the same kinds of scheduling, each kind's workloads that the
# test's label filter selects (CI's sample; .ci/run says why).
if [[ $BENCH == test-sample ]]; then
  BENCH="BenchmarkUpstream/$SAMPLE_PACKAGES/plugins=/$SAMPLE_CASES/"
fi
REPORT_MOD=$ROOT/hack/tools/benchreport

log() { printf '[upstream] %s\n' "$*" >&2; }
die() { printf '[upstream] error: %s\n' "$*" >&2; exit 1; }

usage() {
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
  exit 2
}

# check_minor refuses an older Kubernetes minor: test/upstream builds for
# the newest only.
check_minor() {
  local newest
  newest=$(hack/k8s.sh newest)
  if [[ -n ${K8S:-} && $K8S != "$newest" ]]; then
    die "upstream's workloads run on the newest Kubernetes minor only ($newest), not K8S=$K8S"
  fi
}

# ensure_etcd builds the etcd the harness starts, unless there is one.
ensure_etcd() {
  if [[ -x $TOOLS_DIR/etcd ]] || command -v etcd >/dev/null 2>&1; then
    return
  fi
  TOOLS_DIR=$TOOLS_DIR hack/build-tools.sh etcd
}

# build compiles the test binary once; each run below reuses it.
build() {
  local out=$1
  log "building the test binary"
  "$GO" test -c -o "$out/upstream.test" ./test/upstream
}

# run_workloads OUT OUTPUT ARGS...: the workloads, from test/upstream
# (where the binary finds the module and the shipped configuration). Each
# workload's log goes to OUT/logs and is kept only if it fails.
run_workloads() {
  local out=$1 output=$2
  shift 2
  mkdir -p "$out/logs"
  (cd test/upstream && PATH="$TOOLS_DIR:$PATH" ARTIFACTS="$out/logs" KUBE_CACHE_MUTATION_DETECTOR=false \
    "$out/upstream.test" -test.run '^Test' -test.bench "$BENCH" -test.benchtime 1x -test.timeout 120m "$@") >"$output" 2>&1
}

# summarize prints what passed, failed and was skipped, from a run's output.
summarize() {
  local output=$1
  local passed failed
  passed=$(grep -cE '^Benchmark[^ ]*-[0-9]+[[:space:]]+1[[:space:]]' "$output" || true)
  failed=$(grep -cE -- '--- FAIL: .*/.*/.*/.*' "$output" || true)
  log "workloads passed: $passed, failed: $failed"
  grep -E -- '--- FAIL: ' "$output" | sed 's/^ */[upstream]   /' >&2 || true
  awk '/^Skipped \(/ { on = 1 } on && (/^Skipped/ || /^  /) { print "[upstream] " $0 }' "$output" >&2 || true
}

run_test() {
  local out=$OUT_ROOT/test start=$SECONDS rc=0 jobs=${UPSTREAM_JOBS:-2} i
  local labels=${UPSTREAM_LABELS:-integration-test,-performance}
  rm -rf "$out"
  mkdir -p "$out"
  build "$out"
  log "workloads labelled '$labels' with the plugins, in $jobs processes side by side (minutes)"
  local pids=()
  for ((i = 1; i <= jobs; i++)); do
    run_workloads "$out" "$out/shard-$i.txt" -perf-scheduling-label-filter="$labels" -shard "$i/$jobs" &
    pids+=($!)
  done
  for i in "${pids[@]}"; do
    wait "$i" || rc=$?
  done
  for ((i = 1; i <= jobs; i++)); do
    cat "$out/shard-$i.txt"
  done >"$out/output.txt"
  summarize "$out/output.txt"
  log "done in $((SECONDS - start))s; output in $out/output.txt"
  [[ $rc -eq 0 ]] || die "upstream workloads failed (exit $rc): see $out/output.txt and $out/logs/"
  # A filter that selects nothing would pass having checked nothing.
  grep -qE '^Benchmark[^ ]*-[0-9]+[[:space:]]+1[[:space:]]' "$out/output.txt" \
    || die "no workload ran: the label filter ($labels) or UPSTREAM_BENCH ($BENCH) selects none"
}

# ensure_benchstat builds the benchstat hack/tools/benchreport pins, as
# hack/bench.sh does.
ensure_benchstat() {
  mkdir -p "$TOOLS_DIR"
  (cd "$REPORT_MOD" && GOWORK=off "$GO" build -o "$TOOLS_DIR/benchstat" golang.org/x/perf/cmd/benchstat)
}

run_bench() {
  local out=$OUT_ROOT/bench start=$SECONDS rc=0 i
  local count=${UPSTREAM_COUNT:-1} labels=${UPSTREAM_LABELS:-performance}
  rm -rf "$out"
  mkdir -p "$out/data"
  ensure_benchstat
  build "$out"
  : >"$out/output.txt"
  for ((i = 1; i <= count; i++)); do
    # Each variant of a package runs after the other's in the same process,
    # whose heap and goroutines the first one leaves behind: the order
    # alternates from one round to the next, so that it favours neither.
    local order=stock,windows-aware
    ((i % 2 == 1)) || order=windows-aware,stock
    log "round $i/$count: workloads labelled '$labels', $order"
    # No thresholds: they are set for upstream's machines, and a workload
    # that misses one reports no numbers.
    # Each round is CPU-profiled, for the scheduler's own CPU per pod in
    # each workload (test/bench/schedcpu, hack/tools/benchreport/cpu.go).
    SCHEDCPU_RECORDS="$out/cpu-perf-round-$i.jsonl" run_workloads "$out" "$out/round-$i.txt" -plugins="$order" -thresholds=false \
      -perf-scheduling-label-filter="$labels" -data-items-dir "$out/data" -test.cpuprofile "$out/cpu-perf-round-$i.prof" || rc=$?
    cat "$out/round-$i.txt" >>"$out/output.txt"
    [[ $rc -eq 0 ]] || break
  done
  summarize "$out/output.txt"
  { grep -E '^(goos|goarch|pkg|cpu):' "$out/output.txt" | sort -u
    grep -E '^Benchmark[^ ]*-[0-9]+[[:space:]]' "$out/output.txt" | sort -s -k1,1; } >"$out/upstream.txt"
  [[ $rc -eq 0 ]] || die "upstream workloads failed (exit $rc): see $out/output.txt and $out/logs/"
  throughput_table "$out"
  log "done in $((SECONDS - start))s; results in $out"
}

# throughput_table: benchstat's table of SchedulingThroughput/Average,
# stock and windows-aware side by side, then windows-aware's ratio to stock
# for each workload by three measures (hack/tools/benchreport -upstream):
# upstream's average of one rate a second, which the partly filled first
# and last seconds dominate in a run of a second or two (such runs are
# flagged); the throughput over the span of the measured pods (the pods
# bound between the harness's first and last sample over the time between);
# and the scheduler's own CPU per pod from the round's CPU profile.
throughput_table() {
  local out=$1 bs=$TOOLS_DIR/benchstat
  (
    cd "$out"
    "$bs" -col /plugins -filter '.unit:"SchedulingThroughput/Average"' upstream.txt >benchstat-throughput.txt 2>&1 || true
  )
  cat "$out/benchstat-throughput.txt"
  echo
  (cd "$REPORT_MOD" && GOWORK=off "$GO" run . -upstream "$out") | tee "$out/ratio.txt"
}

check_minor
case ${1:-} in
  test) ensure_etcd; run_test ;;
  bench) ensure_etcd; run_bench ;;
  *) usage ;;
esac
