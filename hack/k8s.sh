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

# Maps a Kubernetes minor (1.35, 1.36, ...) to how the project builds
# against it. The one place that knows the layout; the Makefile, the
# Dockerfile, hack/ldflags.sh and hack/build-tools.sh all ask it.
#
#   go.mod                    the newest minor, built by plain `go build`
#   hack/k8s/<minor>/go.mod   an older minor: the same requires and replaces,
#                             rewritten by hack/update-k8s-modfiles.sh
#   hack/k8s/<minor>/tools.mod  kube-apiserver, kube-controller-manager and
#                             kubectl of that minor, for hack/build-tools.sh
#
# Code that differs between minors sits in files with the build tag
# k8s<major>_<minor> (k8s1_35); the newest minor's files carry none of them.
#
# Usage: hack/k8s.sh COMMAND [MINOR]     (MINOR default: $K8S, else the newest)
#   minors           every minor the tree builds, oldest first
#   newest           the minor of go.mod
#   version          the k8s.io/kubernetes version built (v1.36.3)
#   modfile          the go.mod of that minor, relative to the repository
#   goflags          the flags go build/test/vet need (empty for the newest)
#   tag              the build tag of that minor (empty for the newest)
#   toolsmod         hack/build-tools.sh: the modfile of the kube tools
#   toolsdir         hack/build-tools.sh: where the kube tools go, relative
#                    to the tools directory ("." for the newest)
set -eu
cd "$(dirname "$0")/.."

# kube_version MODFILE: the k8s.io/kubernetes version MODFILE requires.
kube_version() {
  awk '$1 == "k8s.io/kubernetes" && $2 ~ /^v/ {print $2; exit}' "$1"
}

# minor_of VERSION: v1.36.3 -> 1.36
minor_of() {
  echo "$1" | sed -E 's/^v([0-9]+)\.([0-9]+)\..*/\1.\2/'
}

newest=$(minor_of "$(kube_version go.mod)")

cmd=${1:-}
minor=${2:-${K8S:-$newest}}
if [ -z "$minor" ]; then minor=$newest; fi

case $cmd in
  minors)
    for d in hack/k8s/*/go.mod; do
      [ -f "$d" ] && minor_of "$(kube_version "$d")"
    done | sort -t. -k1,1n -k2,2n
    echo "$newest"
    exit 0 ;;
  newest)
    echo "$newest"
    exit 0 ;;
esac

if [ "$minor" = "$newest" ]; then
  modfile=go.mod
  tag=
else
  modfile=hack/k8s/$minor/go.mod
  if [ ! -f "$modfile" ]; then
    echo "hack/k8s.sh: Kubernetes $minor is not built by this tree (have: $(sh "$0" minors | tr '\n' ' '))" >&2
    exit 2
  fi
  tag=k8s$(echo "$minor" | tr . _)
fi

case $cmd in
  version) kube_version "$modfile" ;;
  modfile) echo "$modfile" ;;
  tag) echo "$tag" ;;
  goflags)
    if [ -n "$tag" ]; then echo "-modfile=$modfile -tags=$tag"; else echo; fi ;;
  toolsmod)
    if [ -n "$tag" ]; then echo "hack/k8s/$minor/tools.mod"; else echo hack/tools/go.mod; fi ;;
  toolsdir)
    if [ -n "$tag" ]; then echo "k8s$minor"; else echo .; fi ;;
  *)
    sed -n '/^# Usage:/,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
    exit 2 ;;
esac
