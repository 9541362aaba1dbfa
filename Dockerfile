# syntax=docker/dockerfile:1
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

# The windows-aware scheduler and its publish-mode webhook: static binaries on a
# distroless, non-root base, for linux/amd64 and linux/arm64.
#   make image [K8S=1.36] [PLATFORMS=linux/amd64,linux/arm64]     # or:
#   docker buildx build --platform linux/amd64,linux/arm64 \
#     --build-arg VERSION=$(cat VERSION) --build-arg K8S=1.36 --build-arg GIT_COMMIT=$(git rev-parse HEAD) \
#     -t windows-aware-scheduler:$(cat VERSION)-k8s1.36 .
# K8S is the Kubernetes minor to build against (default: the newest; hack/k8s.sh).
#
# The syntax directive stays the file's first line: BuildKit reads parser
# directives only before any comment.
#
# The build stage runs on the builder's own platform and cross-compiles for
# each target (the binaries are pure Go, CGO_ENABLED=0), so that an arm64
# image builds at native speed on an amd64 builder, without emulation.
# TARGETOS and TARGETARCH are the automatic arguments BuildKit sets for each
# platform of --platform; they are declared without a default, which would
# override them. Only the final stage runs on the target platform, and its
# base is published for both.

FROM --platform=$BUILDPLATFORM golang:1.26-bookworm AS build
WORKDIR /src
# Dependencies first, so that a source change reuses the module layer.
COPY go.mod go.sum ./
COPY hack/k8s.sh hack/
COPY hack/k8s/ hack/k8s/
ARG K8S=
RUN go mod download -modfile="$(sh hack/k8s.sh modfile)"
COPY . .
ARG VERSION
ARG GIT_COMMIT=unknown
ARG TARGETOS
ARG TARGETARCH
RUN --mount=type=cache,target=/root/.cache/go-build \
    export VERSION="${VERSION:-$(cat VERSION)}" GIT_COMMIT="${GIT_COMMIT}" GIT_TREE_STATE=clean \
      CGO_ENABLED=0 GOOS="${TARGETOS}" GOARCH="${TARGETARCH}" && \
    go build $(sh hack/k8s.sh goflags) -trimpath -ldflags "$(sh hack/ldflags.sh)" -o /out/scheduler ./cmd/scheduler && \
    go build $(sh hack/k8s.sh goflags) -trimpath -ldflags "$(sh hack/ldflags.sh)" -o /out/admission ./cmd/admission

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/scheduler /scheduler
# The publish-mode webhook (manifests/publish) runs /admission from the same image.
COPY --from=build /out/admission /admission
USER 65532:65532
ENTRYPOINT ["/scheduler"]
