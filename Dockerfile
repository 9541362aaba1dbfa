# syntax=docker/dockerfile:1
# The windows-aware scheduler: a static binary on a distroless, non-root base.
#   make image                     # or:
#   docker build --build-arg VERSION=$(cat VERSION) --build-arg GIT_COMMIT=$(git rev-parse HEAD) -t windows-aware-scheduler .

FROM golang:1.26-bookworm AS build
WORKDIR /src
# Dependencies first, so that a source change reuses the module layer.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION
ARG GIT_COMMIT=unknown
ARG TARGETOS=linux
ARG TARGETARCH=amd64
RUN --mount=type=cache,target=/root/.cache/go-build \
    VERSION="${VERSION:-$(cat VERSION)}" GIT_COMMIT="${GIT_COMMIT}" GIT_TREE_STATE=clean \
    CGO_ENABLED=0 GOOS="${TARGETOS}" GOARCH="${TARGETARCH}" \
    go build -trimpath -ldflags "$(sh hack/ldflags.sh)" -o /out/scheduler ./cmd/scheduler

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/scheduler /scheduler
USER 65532:65532
ENTRYPOINT ["/scheduler"]
