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

# Writes a release into one folder, _output/release/<VERSION>/ (RELEASE_DIR):
#
#   windows-aware-scheduler-<VERSION>-k8s<minor>-linux-<arch>.tar.gz
#   windows-aware-admission-<VERSION>-k8s<minor>-linux-<arch>.tar.gz
#       the scheduler and the publish-mode webhook, static, for linux/amd64
#       and linux/arm64, of each Kubernetes minor in RELEASE_MINORS (default:
#       the newest), named as the image tag names the minor
#   kubectl-windows_aware-<VERSION>-<os>-<arch>.tar.gz
#       the kubectl plugin (cmd/kubectl-windows_aware, when the tree has it)
#       for linux, darwin (amd64, arm64) and windows (amd64), as krew
#       installs it: the binary and LICENSE at the archive's root
#   windows-aware-scheduler-<chart version>.tgz
#       the Helm chart (helm package), its version VERSION without the v
#       and its appVersion VERSION
#   SHA256SUMS
#       sha256sum's lines for every file above: sha256sum -c SHA256SUMS
#
# Every archive holds its binary and LICENSE. The binaries carry the version
# hack/ldflags.sh stamps, with the commit's time as their build date, and
# the archives the same time as their files' and no owner, so that two
# releases of one commit are the same bytes (GNU tar).
#
# Environment: VERSION (default: the VERSION file), RELEASE_MINORS (space
# separated, default: the newest minor), RELEASE_DIR, HELM (default:
# helm on $PATH), GO.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

GO=${GO:-go}
HELM=${HELM:-helm}
VERSION=${VERSION:-$(cat VERSION)}
RELEASE_MINORS=${RELEASE_MINORS:-$(hack/k8s.sh newest)}
RELEASE_DIR=${RELEASE_DIR:-_output/release/$VERSION}
CHART=charts/windows-aware-scheduler
PLUGIN=cmd/kubectl-windows_aware

log() { printf '[release] %s\n' "$*" >&2; }

# The commit's time, for the binaries' build date and the archives' file
# times: a release of one commit is the same whenever it is built.
if [[ -z ${SOURCE_DATE_EPOCH:-} ]]; then
  SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null || date +%s)
fi
export SOURCE_DATE_EPOCH VERSION
export BUILD_DATE=${BUILD_DATE:-$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)}
if [[ -n $(git status --porcelain 2>/dev/null) ]]; then
  log "warning: the work tree has changes; the binaries say gitTreeState=dirty"
fi

command -v "$HELM" >/dev/null || { log "no helm ($HELM): make release builds it into bin/tools, or give HELM=/path/to/helm"; exit 1; }

rm -rf "$RELEASE_DIR"
mkdir -p "$RELEASE_DIR"
RELEASE_DIR=$(cd "$RELEASE_DIR" && pwd)
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT

# archive NAME FILE...: NAME.tar.gz in RELEASE_DIR of the FILEs (in STAGE)
# and LICENSE, at its root.
archive() {
  local name=$1
  shift
  cp LICENSE "$STAGE/LICENSE"
  tar -C "$STAGE" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
    -cf - "$@" LICENSE | gzip -n -9 >"$RELEASE_DIR/$name.tar.gz"
  log "$name.tar.gz"
}

# gobuild OS ARCH OUT PACKAGE [GOFLAGS...]: a static build stamped by
# hack/ldflags.sh (of the minor K8S in the environment).
gobuild() {
  local os=$1 arch=$2 out=$3 pkg=$4
  shift 4
  GOOS=$os GOARCH=$arch CGO_ENABLED=0 "$GO" build "$@" -trimpath -ldflags "$(hack/ldflags.sh)" -o "$out" "$pkg"
}

for minor in $RELEASE_MINORS; do
  export K8S=$minor
  read -r -a goflags <<<"$(hack/k8s.sh goflags "$minor")"
  for platform in linux/amd64 linux/arm64; do
    os=${platform%/*} arch=${platform#*/}
    for bin in scheduler admission; do
      log "building $bin for Kubernetes $minor, $os/$arch ..."
      rm -rf "${STAGE:?}"/*
      gobuild "$os" "$arch" "$STAGE/$bin" "./cmd/$bin" "${goflags[@]}"
      archive "windows-aware-$bin-$VERSION-k8s$minor-$os-$arch" "$bin"
    done
  done
done
unset K8S

if [[ -d $PLUGIN ]]; then
  for platform in linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64; do
    os=${platform%/*} arch=${platform#*/}
    bin=kubectl-windows_aware
    [[ $os == windows ]] && bin=$bin.exe
    log "building $bin for $os/$arch ..."
    rm -rf "${STAGE:?}"/*
    gobuild "$os" "$arch" "$STAGE/$bin" "./$PLUGIN"
    archive "kubectl-windows_aware-$VERSION-$os-$arch" "$bin"
  done
else
  log "no $PLUGIN in this tree: no kubectl plugin archives"
fi

log "packaging the chart ..."
# helm package stamps each file with its modification time: a copy with
# the commit's time, so that the package does not depend on the checkout.
rm -rf "${STAGE:?}"/*
cp -R "$CHART" "$STAGE/"
find "$STAGE/${CHART##*/}" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
"$HELM" package "$STAGE/${CHART##*/}" --version "${VERSION#v}" --app-version "$VERSION" --destination "$RELEASE_DIR" >/dev/null
log "$(cd "$RELEASE_DIR" && ls -- *.tgz)"

# Written beside, then moved in: a file being written in the folder would
# be listed too.
(cd "$RELEASE_DIR" && find . -maxdepth 1 -type f ! -name SHA256SUMS -printf '%f\n' | LC_ALL=C sort | xargs sha256sum -- >"$STAGE/SHA256SUMS")
mv "$STAGE/SHA256SUMS" "$RELEASE_DIR/SHA256SUMS"
log "$RELEASE_DIR:"
(cd "$RELEASE_DIR" && ls -l)
