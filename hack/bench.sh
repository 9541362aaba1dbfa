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

# Benchmarks of the windows-aware scheduler on synthetic clusters of mixed
# OS and Windows builds (issue #4).
#
#   hack/bench.sh full     make bench: both levels at full size, several runs
#                          each, benchstat, then the report (docs/).
#   hack/bench.sh ci       make bench-ci: both levels at 5,000 nodes, one
#                          short run; placements are asserted (a misplaced
#                          pod fails), speed is reported against the targets.
#   hack/bench.sh report   make bench-report: docs/benchmarks.md from the
#                          last full run (hack/tools/benchreport).
#
# Levels:
#   plugin level     test/bench/plugins: go test -bench over a scheduler
#                    cache snapshot and real frameworks (no apiserver);
#   whole scheduler  test/bench/perf: upstream's scheduler_perf harness
#                    (in-process kube-apiserver, etcd from bin/tools).
#
# Results go to _output/bench/<mode>/ (ignored by git), the whole-scheduler
# rounds' CPU profiles among them (cpu-perf-round-<n>.prof, the pods each
# workload scheduled in cpu-perf-round-<n>.jsonl, and their attribution by
# workload in schedcpu-round-<n>.txt).
#
# Knobs (environment):
#   BENCH_COUNT      plugin-level runs per benchmark      (full 6, ci 1)
#   BENCH_TIME       plugin-level -benchtime              (full 500ms, ci 200ms)
#   BENCH_SIZES      plugin-level node counts             (full 1000,5000,15000, ci 5000)
#   PERF_COUNT       whole-scheduler rounds, each running every workload
#                    once, in a process of its own            (full 3, ci 1)
#   PERF_LABELS      scheduler_perf label filter          (full performance, ci ci)
#                    (bindguard: the workloads with BindGuard on, whose
#                    reference is WindowsMix's windows-aware workload)
#   BENCH_PROFILES   pod kinds whose windows-aware sweep at 5,000 nodes is
#                    CPU-profiled for the report (full linux,win2019,win2022,hostprocess,
#                    ci none; "none" to skip)
#   PERF_PROFILE     whole-scheduler workload whose scheduling cycle is
#                    CPU-profiled, windows-aware and the stock profile
#                    without selectors (full 5000Nodes_10000Pods, ci none)
#   BENCH_SKIP_PERF  1: plugin level only
#   BENCH_PLACEMENT_ONLY  1 (ci only; CI sets it): the placements alone, the
#                    workloads labelled speed (references for a ratio) and
#                    the admission and upgrade-plan benchmarks left out
#   BENCH_OUT        results root                         (_output/bench)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=hack/goenv.sh
source hack/goenv.sh
GO=${GO:-go}
TOOLS_DIR=${TOOLS_DIR:-$ROOT/bin/tools}
OUT_ROOT=${BENCH_OUT:-$ROOT/_output/bench}
# benchstat and the report generator come from the module
# hack/tools/benchreport, which pins golang.org/x/perf.
REPORT_MOD=$ROOT/hack/tools/benchreport

log() { printf '[bench] %s\n' "$*" >&2; }
die() { printf '[bench] error: %s\n' "$*" >&2; exit 1; }

usage() {
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
  exit 2
}

# ensure_benchstat builds the benchstat hack/tools/benchreport pins into
# bin/tools (the build cache makes a rebuild cheap).
ensure_benchstat() {
  mkdir -p "$TOOLS_DIR"
  (cd "$REPORT_MOD" && GOWORK=off "$GO" build -o "$TOOLS_DIR/benchstat" golang.org/x/perf/cmd/benchstat)
}

# benchreport runs the report generator on a results directory.
benchreport() {
  (cd "$REPORT_MOD" && GOWORK=off "$GO" run . "$@")
}

# ensure_etcd checks for the etcd that scheduler_perf starts (make tools).
ensure_etcd() {
  if [[ -x $TOOLS_DIR/etcd ]]; then
    return
  fi
  if command -v etcd >/dev/null 2>&1; then
    log "no $TOOLS_DIR/etcd; using $(command -v etcd)"
    return
  fi
  die "no etcd: run 'make tools' (hack/build-tools.sh) first"
}

# write_meta records the machine and the run, for the report.
write_meta() {
  local out=$1 mode=$2
  {
    echo "mode=$mode"
    echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "tree=$(test -z "$(git status --porcelain 2>/dev/null)" && echo clean || echo dirty)"
    echo "go=$("$GO" env GOVERSION)"
    echo "cpu=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
    echo "nproc=$(nproc)"
    echo "mem=$(awk '/^MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
    echo "kernel=$(uname -sr)"
    echo "loadavg_start=$(cut -d' ' -f1-3 /proc/loadavg)"
    echo "bench_count=$BENCH_COUNT"
    echo "bench_time=$BENCH_TIME"
    echo "bench_sizes=$BENCH_SIZES"
    echo "perf_count=$PERF_COUNT"
    echo "perf_labels=$PERF_LABELS"
    echo "bench_profiles=$BENCH_PROFILES"
    echo "perf_profile=$PERF_PROFILE"
  } >"$out/meta.env"
}

# start_load_sampler records the 1-minute load average every 15 s, with the
# phase the run is in, so that the report can tell load from elsewhere on
# the machine (the plugin benchmarks keep about one core busy, the
# whole-scheduler harness both).
LOAD_SAMPLER=
start_load_sampler() {
  local out=$1
  : >"$out/phase"
  (
    while :; do
      printf '%s %s %s\n' "$(date +%s)" "$(cut -d' ' -f1 /proc/loadavg)" "$(cat "$out/phase" 2>/dev/null)"
      sleep 15
    done
  ) >"$out/load.txt" 2>/dev/null &
  LOAD_SAMPLER=$!
  trap stop_load_sampler EXIT
}

stop_load_sampler() {
  if [[ -n $LOAD_SAMPLER ]]; then
    kill "$LOAD_SAMPLER" 2>/dev/null || true
    wait "$LOAD_SAMPLER" 2>/dev/null || true
    LOAD_SAMPLER=
  fi
}

phase() { echo "$2" >"$1/phase"; }

# run_plugins: the plugin-level checks and benchmarks.
run_plugins() {
  local out=$1 start=$SECONDS
  log "plugin level: correctness (placements of both approaches against the oracle, whole profiles, filter order)"
  "$GO" test ./test/bench/plugins -count=1 -v \
    -run '^(TestPlacementsAgree|TestProfileFilterOrder)$' >"$out/plugins-tests.txt" 2>&1 \
    || { cat "$out/plugins-tests.txt" >&2; die "plugin-level correctness checks failed"; }
  log "plugin level: benchmarks (sizes $BENCH_SIZES, count $BENCH_COUNT, benchtime $BENCH_TIME)"
  # One go test per round, so that the approaches alternate in time and a
  # burst of load elsewhere on the machine does not fall on one of them only.
  "$GO" test -c -o "$out/plugins.test" ./test/bench/plugins
  : >"$out/plugins.txt"
  local i rc
  for ((i = 1; i <= BENCH_COUNT; i++)); do
    log "  round $i/$BENCH_COUNT"
    set +e
    (cd test/bench/plugins && "$out/plugins.test" -test.run '^$' \
      -test.bench '^(BenchmarkSweep|BenchmarkProfileSweep|BenchmarkFilterNode)$' \
      -test.benchtime "$BENCH_TIME" -test.count 1 -test.timeout 120m -sizes "$BENCH_SIZES") >"$out/plugins-round.txt" 2>&1
    rc=$?
    set -e
    if [[ $rc -ne 0 ]]; then
      cat "$out/plugins-round.txt" >&2
      die "plugin-level benchmarks failed (exit $rc)"
    fi
    if [[ $i -eq 1 ]]; then
      grep -E '^(goos|goarch|pkg|cpu):' "$out/plugins-round.txt" >>"$out/plugins.txt" || true
    fi
    grep -E '^Benchmark' "$out/plugins-round.txt" >>"$out/plugins.txt"
    grep -E '^Benchmark(Sweep|ProfileSweep)/nodes=5000/pod=mix' "$out/plugins-round.txt" | awk '{printf "[bench]     %-70s %12s ns/op\n", $1, $3}' >&2 || true
  done
  rm -f "$out/plugins-round.txt"
  # PreEnqueue with a warm resolution cache runs under the scheduling
  # queue's lock: its cost per pod (target < 1 us, no allocation).
  log "plugin level: PreEnqueue with a warm image-resolution cache"
  "$GO" test ./pkg/plugins/windowsaware -run '^$' -bench '^BenchmarkPreEnqueue$' \
    -benchtime "$BENCH_TIME" -count "$BENCH_COUNT" >"$out/preenqueue.txt" 2>&1 \
    || { cat "$out/preenqueue.txt" >&2; die "BenchmarkPreEnqueue failed"; }
  grep -E '^Benchmark' "$out/preenqueue.txt" >>"$out/plugins.txt"
  # The admission webhook's warnings at 5,000 nodes (targets: p99 <= 5 ms a
  # review, throughput with warnings on >= 0.9x off), the memory of its
  # node inventory (<= 20 MiB), and upgrade-plan over 5,000 nodes and
  # 10,000 pods (<= 10 s, <= 500 MiB): the report's tool targets.
  if [[ ${BENCH_PLACEMENT_ONLY:-0} == 1 ]]; then
    log "admission and upgrade-plan: left out (BENCH_PLACEMENT_ONLY; make bench measures them)"
    echo "plugins_seconds=$((SECONDS - start))" >>"$out/meta.env"
    run_profiles "$out"
    return
  fi
  log "admission and upgrade-plan at 5,000 nodes"
  "$GO" test ./pkg/warnings ./pkg/inventory ./pkg/explain -run '^$' \
    -bench '^(BenchmarkWarningsAdmission|BenchmarkInventoryMemory|BenchmarkUpgradePlan)$' \
    -benchtime "$BENCH_TIME" -count "$BENCH_COUNT" >"$out/admission.txt" 2>&1 \
    || { cat "$out/admission.txt" >&2; die "BenchmarkWarningsAdmission, BenchmarkInventoryMemory or BenchmarkUpgradePlan failed"; }
  grep -E '^Benchmark' "$out/admission.txt" | sed 's/^/[bench]     /' >&2 || true
  echo "plugins_seconds=$((SECONDS - start))" >>"$out/meta.env"
  run_profiles "$out"
}

# run_profiles CPU-profiles the windows-aware sweep at 5,000 nodes for a few
# pod kinds and keeps pprof's table of each (cpu-<kind>.txt), which the
# report reads to say where the time goes. A failure here only warns.
run_profiles() {
  local out=$1 kind
  [[ $BENCH_PROFILES == none || -z $BENCH_PROFILES ]] && return 0
  log "plugin level: CPU profiles of the windows-aware sweep at 5,000 nodes ($BENCH_PROFILES)"
  for kind in ${BENCH_PROFILES//,/ }; do
    if ! (cd test/bench/plugins && "$out/plugins.test" -test.run '^$' \
      -test.bench "^BenchmarkSweep/nodes=5000/pod=$kind/approach=windows-aware\$" \
      -test.benchtime 3s -test.count 1 -test.cpuprofile "$out/cpu-$kind.prof" -sizes 5000) >"$out/cpu-$kind.bench.txt" 2>&1; then
      log "  warning: profiling pod=$kind failed (see $out/cpu-$kind.bench.txt)"
      continue
    fi
    "$GO" tool pprof -top -nodecount=1000 "$out/plugins.test" "$out/cpu-$kind.prof" >"$out/cpu-$kind.txt" 2>/dev/null \
      || log "  warning: pprof could not read $out/cpu-$kind.prof"
  done
}

# run_perf: the whole scheduler in scheduler_perf.
run_perf() {
  local out=$1 start=$SECONDS
  ensure_etcd
  log "whole scheduler: building the scheduler_perf test binary"
  "$GO" test -c -o "$out/perf.test" ./test/bench/perf
  log "whole scheduler: templates against the oracle's cluster, the BindGuard configuration against the shipped one"
  (cd test/bench/perf && "$out/perf.test" -test.run '^(TestTemplatesMatchCluster|TestResolutionTemplateMatchesMix|TestNewImageTemplate|TestBindGuardConfigIsShippedPlusGuard)$' -test.count 1) >"$out/perf-tests.txt" 2>&1 \
    || { cat "$out/perf-tests.txt" >&2; die "the perf templates do not match internal/synthetic, or scheduler-config-bindguard.yaml is not the shipped configuration plus BindGuard"; }
  log "whole scheduler: workloads labelled '$PERF_LABELS', $PERF_COUNT round(s) (5,000 nodes each; minutes)"
  mkdir -p "$out/perf" "$out/perf-logs"
  # One process per round, each running every workload once, so that the
  # workloads alternate in time and a burst of load elsewhere on the
  # machine does not fall on one of them only (go test -count would run
  # each workload's runs back to back). Each round writes its own JSON.
  : >"$out/perf-output.txt"
  local i rc=0
  for ((i = 1; i <= PERF_COUNT; i++)); do
    log "  round $i/$PERF_COUNT"
    mkdir -p "$out/perf-logs/round-$i"
    set +e
    # Each round is CPU-profiled: the scheduler's own CPU per pod, which
    # the report reads by workload (test/bench/schedcpu labels each
    # workload's goroutines and records the pods it scheduled beside the
    # profile; hack/tools/benchreport/cpu.go says which samples count).
    (cd test/bench/perf && PATH="$TOOLS_DIR:$PATH" ARTIFACTS="$out/perf-logs/round-$i" KUBE_CACHE_MUTATION_DETECTOR=false \
      SCHEDCPU_RECORDS="$out/cpu-perf-round-$i.jsonl" \
      "$out/perf.test" -test.run '^$' -test.bench '^(BenchmarkPerfScheduling|BenchmarkPerfResolution)$' -test.benchtime 1x \
      -test.count 1 -test.timeout 180m -test.cpuprofile "$out/cpu-perf-round-$i.prof" \
      -perf-scheduling-label-filter="$PERF_LABELS" -data-items-dir "$out/perf") >>"$out/perf-output.txt" 2>&1
    rc=$?
    set -e
    [[ $rc -eq 0 ]] || break
  done
  grep -E '^Benchmark' "$out/perf-output.txt" >"$out/perf.txt" || true
  # A label filter that selects nothing would pass having placed nothing.
  [[ $rc -ne 0 || -s $out/perf.txt ]] || die "no whole-scheduler workload ran: the label filter '$PERF_LABELS' selects none"
  grep -E '^(goos|goarch|pkg|cpu):' "$out/perf-output.txt" | sort -u | cat - "$out/perf.txt" >"$out/perf.txt.tmp" && mv "$out/perf.txt.tmp" "$out/perf.txt"
  # benchstat wants a benchmark's runs together.
  { grep -E '^(goos|goarch|pkg|cpu):' "$out/perf.txt"; grep -E '^Benchmark' "$out/perf.txt" | sort -s -k1,1; } >"$out/perf.txt.tmp" && mv "$out/perf.txt.tmp" "$out/perf.txt"
  if [[ $rc -ne 0 ]]; then
    grep -E -- '--- FAIL|FATAL|ERROR|cannot run|misplaced|not bound|want [0-9]+' "$out/perf-output.txt" | head -40 >&2 || true
    die "whole-scheduler benchmark failed (exit $rc): see $out/perf-output.txt and $out/perf-logs/"
  fi
  grep -E 'SchedulingThroughput/Average' "$out/perf.txt" | awk '{for (i=1;i<=NF;i++) if ($(i+1)=="SchedulingThroughput/Average") printf "[bench]   %-70s %8.1f pods/s\n", $1, $i}' >&2 || true
  for ((i = 1; i <= PERF_COUNT; i++)); do
    benchreport -cpu "$out/cpu-perf-round-$i.prof" >"$out/schedcpu-round-$i.txt" 2>&1 \
      || log "  warning: no CPU attribution of round $i (see $out/schedcpu-round-$i.txt)"
  done
  grep -E 'WindowsMix(BindGuard)?/' "$out/schedcpu-round-1.txt" 2>/dev/null | awk '{printf "[bench]   %-70s %8s ms of scheduling CPU a pod\n", $1, $5}' >&2 || true
  echo "perf_seconds=$((SECONDS - start))" >>"$out/meta.env"
  run_perf_profile "$out"
}

# run_perf_profile CPU-profiles one more run of the mix's windows-aware
# workload and of the stock profile placing the same pods without
# selectors, and keeps pprof's view of the scheduler's own stacks
# (cpu-perf-<workload>.txt): where a pod's scheduling time goes in the
# whole scheduler. The harness runs the apiserver in the same process, so
# the view keeps only samples with a frame of the scheduler's packages
# (scheduling and binding cycles, filter and score workers, its event
# handlers). A failure here only warns.
run_perf_profile() {
  local out=$1 w
  [[ $PERF_PROFILE == none || -z $PERF_PROFILE ]] && return 0
  log "whole scheduler: CPU profiles of the scheduling cycle, WindowsMix/$PERF_PROFILE"
  mkdir -p "$out/perf-profile"
  for w in WindowsAware StockNoSelectors; do
    if ! (cd test/bench/perf && PATH="$TOOLS_DIR:$PATH" ARTIFACTS="$out/perf-profile" KUBE_CACHE_MUTATION_DETECTOR=false \
      "$out/perf.test" -test.run '^$' -test.bench "^BenchmarkPerfScheduling\$/^WindowsMix\$/^${PERF_PROFILE}_$w\$" \
      -test.benchtime 1x -test.count 1 -test.timeout 60m -test.cpuprofile "$out/cpu-perf-$w.prof" \
      -perf-scheduling-label-filter="$PERF_LABELS" -data-items-dir "$out/perf-profile") >"$out/cpu-perf-$w.bench.txt" 2>&1; then
      log "  warning: profiling WindowsMix/${PERF_PROFILE}_$w failed (see $out/cpu-perf-$w.bench.txt)"
      continue
    fi
    "$GO" tool pprof -top -cum -focus='k8s.io/kubernetes/pkg/scheduler' -nodecount=40 "$out/perf.test" "$out/cpu-perf-$w.prof" >"$out/cpu-perf-$w.txt" 2>/dev/null \
      || log "  warning: pprof could not read $out/cpu-perf-$w.prof"
  done
}

# run_benchstat summarizes the runs with benchstat, run inside the results
# directory so that its tables name the files, not where they lie.
run_benchstat() {
  local out=$1 bs=$TOOLS_DIR/benchstat
  (
    cd "$out"
    if [[ -s plugins.txt ]]; then
      "$bs" -filter '.name:Sweep' -col /approach plugins.txt >benchstat-sweep.txt 2>&1 || true
      "$bs" -filter '.name:ProfileSweep' -col /profile plugins.txt >benchstat-profiles.txt 2>&1 || true
      "$bs" -filter '.name:FilterNode' plugins.txt >benchstat-filternode.txt 2>&1 || true
    fi
    if [[ -s perf.txt ]]; then
      "$bs" perf.txt >benchstat-perf.txt 2>&1 || true
    fi
  )
}

finish_meta() {
  local out=$1
  echo "loadavg_end=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/meta.env"
  echo "total_seconds=$2" >>"$out/meta.env"
}

mode=${1:-}
case $mode in
  full)
    BENCH_COUNT=${BENCH_COUNT:-6} BENCH_TIME=${BENCH_TIME:-500ms} BENCH_SIZES=${BENCH_SIZES:-1000,5000,15000}
    PERF_COUNT=${PERF_COUNT:-3} PERF_LABELS=${PERF_LABELS:-performance}
    BENCH_PROFILES=${BENCH_PROFILES:-linux,win2019,win2022,hostprocess}
    PERF_PROFILE=${PERF_PROFILE:-5000Nodes_10000Pods}
    ;;
  ci)
    BENCH_COUNT=${BENCH_COUNT:-1} BENCH_TIME=${BENCH_TIME:-200ms} BENCH_SIZES=${BENCH_SIZES:-5000}
    # BENCH_PLACEMENT_ONLY=1 (CI): the workloads that are there for a
    # speed ratio alone (label speed) and the tools' benchmarks are left
    # out, and so are the target verdicts, which need them.
    if [[ ${BENCH_PLACEMENT_ONLY:-0} == 1 ]]; then
      PERF_LABELS=${PERF_LABELS:-ci,-speed}
    fi
    PERF_COUNT=${PERF_COUNT:-1} PERF_LABELS=${PERF_LABELS:-ci}
    BENCH_PROFILES=${BENCH_PROFILES:-none}
    PERF_PROFILE=${PERF_PROFILE:-none}
    ;;
  report)
    in=${BENCH_IN:-$OUT_ROOT/full}
    [[ -f $in/meta.env ]] || die "no results in $in: run 'make bench' first"
    benchreport -in "$in" -out "$ROOT/docs/benchmarks.md" -full "$in/report.md" -root "$ROOT" -findings benchmarks-findings.md
    log "wrote docs/benchmarks.md, and every table to $in/report.md, from $in"
    exit 0
    ;;
  *) usage ;;
esac

out=$OUT_ROOT/$mode
rm -rf "$out"
mkdir -p "$out"
start=$SECONDS
ensure_benchstat
write_meta "$out" "$mode"
start_load_sampler "$out"
phase "$out" plugins
run_plugins "$out"
if [[ ${BENCH_SKIP_PERF:-0} != 1 ]]; then
  phase "$out" perf
  run_perf "$out"
fi
stop_load_sampler
run_benchstat "$out"
finish_meta "$out" $((SECONDS - start))
if [[ ${BENCH_PLACEMENT_ONLY:-0} == 1 ]]; then
  log "target verdicts: left out (BENCH_PLACEMENT_ONLY: their reference workloads did not run); placements were asserted"
else
  benchreport -in "$out" -summary
fi
log "$mode done in $((SECONDS - start))s; results in $out"
if [[ $mode == full ]]; then
  "$0" report
fi
