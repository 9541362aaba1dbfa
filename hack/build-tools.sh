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

# Builds the tools of the integration tests and of make demo from the Go
# module proxy, at the versions the tools modules pin, into $TOOLS_DIR
# (default: bin/tools of the repository):
#
#   etcd                     go.etcd.io/etcd/server/v3   hack/tools/go.mod
#   kube-apiserver           k8s.io/kubernetes           hack/tools/go.mod (*)
#   kube-controller-manager  k8s.io/kubernetes           hack/tools/go.mod (*)
#   kubectl                  k8s.io/kubernetes           hack/tools/go.mod (*)
#   demo-controllers         k8s.io/kubernetes           hack/tools/go.mod
#     (hack/tools/democontrollers: the controllers make demo needs, not all
#     of kube-controller-manager's; the stamp names a hash of its code)
#   kwok                     sigs.k8s.io/kwok            hack/tools/kwok/go.mod
#   helm                     helm.sh/helm/v4             hack/tools/helm/go.mod
#   registry                 github.com/distribution/distribution/v3 (main.go:
#                            its filesystem and in-memory storage, htpasswd)
#                                                        hack/tools/registry/go.mod
#   karpenter-kwok           sigs.k8s.io/karpenter       hack/tools/karpenter/go.mod
#     and karpenter-crds/    (its CRDs, copied from the module)
#   promtool                 github.com/prometheus/prometheus (make test-rules;
#                            built with remove_all_sd: no cloud's service
#                            discovery, which promtool's rule tests never use)
#                                                        hack/tools/promtool/go.mod
#
# Each binary has a stamp file beside it (<tool>.stamp) naming the module
# version and the Go version it was built with; a tool is rebuilt only when
# its binary is missing or its stamp differs. Nothing but Go is needed.
#
# Before it builds anything it names the tools it will build, with a rough
# time each (estimate below: kube-apiserver and kube-controller-manager take
# minutes each on 2 cores), and as it goes which one it builds and how long
# each took.
#
# (*) Those three come in the Kubernetes minor the scheduler is built for,
# K8S (default: the newest, see hack/k8s.sh): the newest minor's go into
# $TOOLS_DIR, an older minor's into $TOOLS_DIR/k8s<minor> (bin/tools/k8s1.36),
# built with its modfile hack/k8s/<minor>/tools.mod. Put that directory
# before $TOOLS_DIR on $PATH to test against it. etcd, kwok and helm are the
# same for every minor.
#
# Usage: [K8S=1.36] hack/build-tools.sh [tool...]    (default: every tool)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOOLS_DIR=${TOOLS_DIR:-$ROOT/bin/tools}
GO=${GO:-go}
# The tools modules choose their own modfiles: none from the caller. The
# compiler collects garbage less often (GOGC=400: a cold build of
# client-go and the API server library took 290 s against 309 s).
export GOWORK=off CGO_ENABLED=0 GOFLAGS= GOGC=${BUILD_GOGC:-400}

mkdir -p "$TOOLS_DIR"
TOOLS_DIR=$(cd "$TOOLS_DIR" && pwd)


GO_VERSION=$("$GO" env GOVERSION)

log() { printf '[build-tools] %s\n' "$*" >&2; }

# The Kubernetes minor of kube-apiserver, kube-controller-manager and
# kubectl: their modfile and the directory they go to.
K8S=${K8S:-$("$ROOT/hack/k8s.sh" newest)}
KUBE_MODFILE=$ROOT/$("$ROOT/hack/k8s.sh" toolsmod "$K8S")
KUBE_DIR=$TOOLS_DIR/$("$ROOT/hack/k8s.sh" toolsdir "$K8S")
KUBE_DIR=${KUBE_DIR%/.}

# module_version DIR MODULE [MODFILE]: the version of MODULE that the module
# in DIR builds with (its require, or its replace).
module_version() {
  (cd "$1" && "$GO" list -modfile="${3:-$1/go.mod}" -m \
    -f '{{if .Replace}}{{.Replace.Version}}{{else}}{{.Version}}{{end}}' "$2")
}

# build NAME DIR MODULE PACKAGE [LDFLAGS [MODFILE [OUT_DIR [SOURCE]]]]
# SOURCE, when set, names the tool's own code (a hash of it) in the stamp,
# for a tool built from a main package of this repository.
build() {
  local name=$1 dir=$2 module=$3 pkg=$4 ldflags=${5:-} modfile=${6:-$2/go.mod} out=${7:-$TOOLS_DIR} source=${8:-}
  local stamp bin want version
  version=$(module_version "$dir" "$module" "$modfile")
  want=$(stamp_of "$name" "$dir" "$module" "$modfile" "$source")
  mkdir -p "$out"
  bin=$out/$name
  stamp=$out/$name.stamp
  # One build of a tool at a time (make test-integration and make bench may
  # run side by side); the tools of another minor build meanwhile.
  local lock
  if command -v flock >/dev/null 2>&1; then
    exec {lock}>"$out/.$name.lock"
    flock "$lock"
  fi
  if [[ -x $bin && -f $stamp && "$(cat "$stamp")" == "$want" ]]; then
    log "$name: up to date ($module@$version)"
    [[ -z ${lock:-} ]] || exec {lock}>&-
    return
  fi
  announce "$name" "$pkg" "$module@$version"
  local start=$SECONDS
  (cd "$dir" && "$GO" build -modfile="$modfile" -trimpath -buildvcs=false -ldflags "-s -w $ldflags" -o "$bin.tmp" "$pkg")
  mv -f "$bin.tmp" "$bin"
  printf '%s\n' "$want" >"$stamp"
  log "$name: built in $(duration $((SECONDS - start))) -> $bin ($(duration $((SECONDS - total))) since the start)"
  [[ -z ${lock:-} ]] || exec {lock}>&-
}

# fresh NAME DIR MODULE [MODFILE [OUT_DIR [SOURCE]]]: whether the tool's
# binary is there with the stamp build would write, as build checks it.
fresh() {
  local name=$1 dir=$2 module=$3 modfile=${4:-$2/go.mod} out=${5:-$TOOLS_DIR} source=${6:-}
  [[ -x $out/$name && -f $out/$name.stamp && "$(cat "$out/$name.stamp")" == "$(stamp_of "$name" "$dir" "$module" "$modfile" "$source")" ]]
}

# stamp_of NAME DIR MODULE MODFILE [SOURCE]: what a tool's stamp says: the
# module's version, the Go version, a hash of the modfile's sums (a
# dependency moved, as when the tools modules follow the product's
# versions, rebuilds it) and of its own code, if any.
stamp_of() {
  local name=$1 dir=$2 module=$3 modfile=$4 source=${5:-} version
  version=$(module_version "$dir" "$module" "$modfile")
  printf '%s %s@%s %s sum:%s%s' "$name" "$module" "$version" "$GO_VERSION" \
    "$(sha256sum <"${modfile%.mod}.sum" | cut -c1-16)" "${source:+ $source}"
}

# estimate TOOL: roughly how long, in seconds, the tool's first build takes
# on 2 cores with empty Go caches (module downloads included), built in
# the order of TOOLS: kube-controller-manager, kubectl, demo-controllers,
# kwok and the product's binaries reuse most of what kube-apiserver
# compiled; the registry builds beside etcd. The demo's tools are as
# measured from a fresh clone (etcd and registry side by side;
# kube-apiserver with kubectl in one build, about 8m45s);
# kube-controller-manager, helm and karpenter-kwok are estimates. More
# cores, or a warm cache, make them shorter.
estimate() {
  case $1 in
    kube-apiserver) echo 480 ;;
    kube-controller-manager) echo 150 ;;
    demo-controllers) echo 15 ;;
    karpenter-kwok) echo 240 ;;
    promtool) echo 300 ;;
    helm) echo 150 ;;
    registry) echo 160 ;;
    kwok) echo 25 ;;
    etcd) echo 175 ;;
    kubectl) echo 45 ;;
    *) echo 120 ;;
  esac
}

# duration SECONDS: 75 -> 1m15s
duration() {
  if (($1 >= 60)); then printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); else printf '%ds' "$1"; fi
}

# source_of DIR: the hash of a tool's own code (the main package in
# hack/tools/DIR and the go.sum of its module), as its stamp names it.
source_of() {
  local sum=$ROOT/hack/tools/$1/go.sum
  [[ -f $sum ]] || sum=$ROOT/hack/tools/go.sum
  printf 'source:%s' "$(cat "$ROOT/hack/tools/$1"/*.go "$sum" | sha256sum | cut -c1-16)"
}

kube_ldflags() {
  local v
  v=$(module_version "$ROOT/hack/tools" k8s.io/kubernetes "$KUBE_MODFILE")
  local minor=${v#v1.}
  minor=${minor%%.*}
  local p=k8s.io/component-base/version
  printf -- '-X %s.gitVersion=%s -X %s.gitMajor=1 -X %s.gitMinor=%s -X %s.gitTreeState=clean' \
    "$p" "$v" "$p" "$p" "$minor" "$p"
}

promtool_ldflags() {
  local v
  v=$(module_version "$ROOT/hack/tools/promtool" github.com/prometheus/prometheus)
  printf -- '-X github.com/prometheus/common/version.Version=%s' "$v"
}

# The build tags of promtool: file and HTTP discovery only (the plugins
# package's own tags), not the cloud providers' SDKs.
PROMTOOL_TAGS=remove_all_sd

registry_ldflags() {
  local v
  v=$(module_version "$ROOT/hack/tools/registry" github.com/distribution/distribution/v3)
  printf -- '-X github.com/distribution/distribution/v3/version.version=%s' "$v"
}

kwok_ldflags() {
  local v
  v=$(module_version "$ROOT/hack/tools/kwok" sigs.k8s.io/kwok)
  printf -- '-X sigs.k8s.io/kwok/pkg/consts.Version=%s' "${v#v}"
}

karpenter_ldflags() {
  local v
  v=$(module_version "$ROOT/hack/tools/karpenter" sigs.k8s.io/karpenter)
  printf -- '-X sigs.k8s.io/karpenter/pkg/operator.Version=%s' "$v"
}

# karpenter_crds: the CRDs karpenter-kwok serves (NodePool, NodeClaim,
# NodeOverlay, CapacityBuffer and KWOKNodeClass), copied from the module
# the binary is built from into $TOOLS_DIR/karpenter-crds, with a stamp as
# the binaries have.
karpenter_crds() {
  local dir=$ROOT/hack/tools/karpenter module=sigs.k8s.io/karpenter
  local version want out=$TOOLS_DIR/karpenter-crds
  version=$(module_version "$dir" "$module")
  want="karpenter-crds $module@$version"
  if [[ -f $out.stamp && "$(cat "$out.stamp")" == "$want" ]]; then
    log "karpenter-crds: up to date ($module@$version)"
    return
  fi
  local src
  src=$(cd "$dir" && "$GO" mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
  [[ -n $src && -d $src ]] || { log "karpenter-crds: no module directory for $module@$version"; exit 1; }
  rm -rf "$out.tmp"
  mkdir -p "$out.tmp"
  cp "$src"/kwok/charts/crds/*.yaml "$src"/kwok/apis/crds/*.yaml "$out.tmp"/
  chmod 0644 "$out.tmp"/*.yaml
  rm -rf "$out"
  mv "$out.tmp" "$out"
  printf '%s\n' "$want" >"$out.stamp"
  log "karpenter-crds: copied $(ls "$out" | wc -l) CRDs from $module@$version -> $out"
}

helm_ldflags() {
  local v
  v=$(module_version "$ROOT/hack/tools/helm" helm.sh/helm/v4)
  local p=helm.sh/helm/v4/internal/version
  printf -- '-X %s.version=%s -X %s.metadata= -X %s.gitTreeState=clean' "$p" "$v" "$p" "$p"
}

want=("$@")
[[ ${#want[@]} -gt 0 ]] || want=(etcd kube-apiserver kube-controller-manager kubectl demo-controllers kwok helm registry karpenter-kwok promtool)

# is_fresh TOOL: whether TOOL needs no build.
is_fresh() {
  case $1 in
    etcd) fresh etcd "$ROOT/hack/tools" go.etcd.io/etcd/server/v3 ;;
    kube-apiserver | kube-controller-manager | kubectl)
      fresh "$1" "$ROOT/hack/tools" k8s.io/kubernetes "$KUBE_MODFILE" "$KUBE_DIR" ;;
    demo-controllers) fresh demo-controllers "$ROOT/hack/tools" k8s.io/kubernetes "" "" "$(source_of democontrollers)" ;;
    kwok) fresh kwok "$ROOT/hack/tools/kwok" sigs.k8s.io/kwok ;;
    helm) fresh helm "$ROOT/hack/tools/helm" helm.sh/helm/v4 ;;
    registry) fresh registry "$ROOT/hack/tools/registry" github.com/distribution/distribution/v3 "" "" "$(source_of registry)" ;;
    karpenter-kwok) fresh karpenter-kwok "$ROOT/hack/tools/karpenter" sigs.k8s.io/karpenter "" "" "$(source_of karpenter)" ;;
    promtool) fresh promtool "$ROOT/hack/tools/promtool" github.com/prometheus/prometheus "" "" "tags:$PROMTOOL_TAGS" ;;
    *)
      log "unknown tool $1 (want etcd, kube-apiserver, kube-controller-manager, kubectl, demo-controllers, kwok, helm, registry, karpenter-kwok or promtool)"
      exit 2 ;;
  esac
}

total=$SECONDS
log "tools dir: $TOOLS_DIR ($GO_VERSION); Kubernetes $K8S tools in $KUBE_DIR"

# Before anything is built, say what will be and roughly how long it takes,
# so that a first run that compiles Kubernetes is not mistaken for a hang.
missing=()
for tool in "${want[@]}"; do
  is_fresh "$tool" || missing+=("$tool")
done
to_build=${#missing[@]}

# in_second_lane TOOL: whether TOOL's module shares next to nothing with
# Kubernetes', so that it builds in the second lane (below).
in_second_lane() {
  case $1 in
    registry | helm | karpenter-kwok | promtool) return 0 ;;
  esac
  return 1
}

# announce NAME PKG MODULE@VERSION: the line a tool's build starts with.
announce() {
  log "$1: building $2 from $3 ($(position "$1") of $to_build, about $(duration "$(estimate "$1")") on 2 cores) ..."
}

# position TOOL: where TOOL comes in the plan (both lanes count from it).
position() {
  local i
  for i in "${!missing[@]}"; do
    [[ ${missing[$i]} != "$1" ]] || { echo $((i + 1)); return; }
  done
  echo "?"
}
if ((to_build > 0)); then
  sum=0 beside=0
  plan=()
  for tool in "${missing[@]}"; do
    if in_second_lane "$tool"; then
      beside=$((beside + $(estimate "$tool")))
    else
      sum=$((sum + $(estimate "$tool")))
    fi
    plan+=("$tool ~$(duration "$(estimate "$tool")")")
  done
  # The tools that share nothing with Kubernetes build beside the others
  # (below): the longer of the two lanes is the wait.
  ((beside <= sum)) || sum=$beside
  log "to build: $(IFS=,; echo "${plan[*]}" | sed 's/,/, /g')"
  log "about $(duration "$sum") in all on 2 cores the first time (less with a warm Go build cache or more cores); later runs reuse them"
fi

# build_tool TOOL: builds one tool, if it is missing or stale.
build_tool() {
  case $1 in
    etcd)
      build etcd "$ROOT/hack/tools" go.etcd.io/etcd/server/v3 ./etcd ;;
    kube-apiserver | kube-controller-manager | kubectl)
      build "$1" "$ROOT/hack/tools" k8s.io/kubernetes "k8s.io/kubernetes/cmd/$1" "$(kube_ldflags)" \
        "$KUBE_MODFILE" "$KUBE_DIR" ;;
    demo-controllers)
      build demo-controllers "$ROOT/hack/tools" k8s.io/kubernetes ./democontrollers "" "" "" \
        "$(source_of democontrollers)" ;;
    kwok)
      build kwok "$ROOT/hack/tools/kwok" sigs.k8s.io/kwok sigs.k8s.io/kwok/cmd/kwok "$(kwok_ldflags)" ;;
    helm)
      build helm "$ROOT/hack/tools/helm" helm.sh/helm/v4 helm.sh/helm/v4/cmd/helm "$(helm_ldflags)" ;;
    registry)
      build registry "$ROOT/hack/tools/registry" github.com/distribution/distribution/v3 . "$(registry_ldflags)" "" "" \
        "$(source_of registry)" ;;
    karpenter-kwok)
      build karpenter-kwok "$ROOT/hack/tools/karpenter" sigs.k8s.io/karpenter . "$(karpenter_ldflags)" "" "" \
        "$(source_of karpenter)"
      karpenter_crds ;;
    promtool)
      GOFLAGS=-tags=$PROMTOOL_TAGS build promtool "$ROOT/hack/tools/promtool" github.com/prometheus/prometheus \
        github.com/prometheus/prometheus/cmd/promtool "$(promtool_ldflags)" "" "" "tags:$PROMTOOL_TAGS" ;;
  esac
}

# build_kube TOOL...: builds the given kube-* tools and kubectl that are
# missing or stale in one go build, which compiles their packages and
# links them side by side (a third of kube-controller-manager's and
# kubectl's packages are their own); one tool is built as any other.
build_kube() {
  local stale=() tool lock=
  mkdir -p "$KUBE_DIR"
  if command -v flock >/dev/null 2>&1; then
    exec {lock}>"$KUBE_DIR/.kube.lock"
    flock "$lock"
  fi
  for tool in "$@"; do
    is_fresh "$tool" || stale+=("$tool")
  done
  if ((${#stale[@]} < 2)); then
    [[ -z $lock ]] || exec {lock}>&-
    for tool in "$@"; do build_tool "$tool"; done
    return
  fi
  local version pkgs=() tmp start=$SECONDS
  version=$(module_version "$ROOT/hack/tools" k8s.io/kubernetes "$KUBE_MODFILE")
  for tool in "${stale[@]}"; do
    pkgs+=("k8s.io/kubernetes/cmd/$tool")
    announce "$tool" "k8s.io/kubernetes/cmd/$tool" "k8s.io/kubernetes@$version"
  done
  tmp=$(mktemp -d "$KUBE_DIR/.build.XXXXXX")
  (cd "$ROOT/hack/tools" && "$GO" build -modfile="$KUBE_MODFILE" -trimpath -buildvcs=false \
    -ldflags "-s -w $(kube_ldflags)" -o "$tmp/" "${pkgs[@]}")
  for tool in "${stale[@]}"; do
    mv -f "$tmp/$tool" "$KUBE_DIR/$tool"
    printf '%s\n' "$(stamp_of "$tool" "$ROOT/hack/tools" k8s.io/kubernetes "$KUBE_MODFILE")" >"$KUBE_DIR/$tool.stamp"
  done
  rmdir "$tmp"
  [[ -z $lock ]] || exec {lock}>&-
  log "${stale[*]}: built together in $(duration $((SECONDS - start))) -> $KUBE_DIR ($(duration $((SECONDS - total))) since the start)"
}

# Two lanes. The first builds, in order, the tools that share packages
# with each other and with the product (etcd, then kube-apiserver, whose
# compiled Kubernetes the others reuse: see internal/toolsmod); the second,
# meanwhile, the tools whose modules share next to nothing with them
# (registry, helm, karpenter-kwok). On 2 cores the second lane's module
# downloads and links fill the first's idle moments; BUILD_TOOLS_LANES=1
# builds one tool at a time.
shared=() apart=()
for tool in "${want[@]}"; do
  if in_second_lane "$tool"; then apart+=("$tool"); else shared+=("$tool"); fi
done
# prefetch_kube: downloads the modules of the kube tools and of
# demo-controllers (go list loads their packages), so that their build
# starts compiling at once; run in the second lane while the first builds
# etcd.
prefetch_kube() {
  local tool pkgs=()
  for tool in "${missing[@]}"; do
    case $tool in
      kube-apiserver | kube-controller-manager | kubectl) pkgs+=("k8s.io/kubernetes/cmd/$tool") ;;
      demo-controllers) pkgs+=(./democontrollers) ;;
    esac
  done
  ((${#pkgs[@]} > 0)) || return 0
  (cd "$ROOT/hack/tools" && "$GO" list -modfile="$KUBE_MODFILE" -deps "${pkgs[@]}" >/dev/null) ||
    log "prefetching the kube tools' modules failed; their build fetches them"
}

apart_pid=
if [[ ${BUILD_TOOLS_LANES:-2} -gt 1 && ${#apart[@]} -gt 0 && ${#shared[@]} -gt 0 ]]; then
  (prefetch_kube; for tool in "${apart[@]}"; do build_tool "$tool"; done) &
  apart_pid=$!
  # shellcheck disable=SC2064 # the pid is known now
  trap "kill $apart_pid 2>/dev/null || true" EXIT
  apart=()
fi
kube=()
for tool in "${shared[@]}" "${apart[@]}"; do
  case $tool in
    kube-apiserver | kube-controller-manager | kubectl) kube+=("$tool") ;;
    *)
      # The kube tools as soon as the next tool is none of them: etcd
      # first, kwok after them.
      if ((${#kube[@]} > 0)); then build_kube "${kube[@]}"; kube=(); fi
      build_tool "$tool" ;;
  esac
done
if ((${#kube[@]} > 0)); then build_kube "${kube[@]}"; fi
if [[ -n $apart_pid ]] && ! wait "$apart_pid"; then
  log "building ${want[*]}: a tool failed (above)"
  exit 1
fi
log "all tools ready in $(duration $((SECONDS - total)))"
