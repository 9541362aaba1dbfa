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

# windows-aware: a kube-scheduler whose windows-aware profile places pods by
# OS and Windows build.

SHELL := /usr/bin/env bash
.DEFAULT_GOAL := build

BIN_DIR      ?= $(CURDIR)/bin
TOOLS_DIR    ?= $(BIN_DIR)/tools
GO           ?= go

# Every go command here compiles as the release build and the tools do
# (static, paths trimmed), tests and vet included: the Go build cache keys
# a compiled package by these settings, so the Kubernetes packages that
# kube-apiserver's build compiles serve the binaries, every test and vet
# alike. With the defaults (cgo on, full paths) each would compile
# Kubernetes once more: minutes on 2 cores. test-race turns cgo on, as the
# race detector needs.
export CGO_ENABLED := 0
export GOFLAGS := $(strip $(GOFLAGS) -trimpath)

# This project's version; hack/ldflags.sh stamps it into the binary.
VERSION      ?= $(shell cat VERSION)
export VERSION

# The Kubernetes minor to build and test against: `make build K8S=1.36`.
# Default: the newest, which go.mod pins; hack/k8s.sh minors lists the others.
NEWEST       := $(shell hack/k8s.sh newest)
K8S          ?= $(NEWEST)
export K8S
# go build/test/vet flags of that minor: its modfile and build tag.
K8S_GOFLAGS  := $(shell hack/k8s.sh goflags $(K8S))
K8S_VERSION  := $(shell hack/k8s.sh version $(K8S))
# kube-apiserver, kube-controller-manager and kubectl of that minor.
K8S_TOOLS_DIR := $(abspath $(TOOLS_DIR)/$(shell hack/k8s.sh toolsdir $(K8S)))

IMAGE        ?= localhost/windows-aware-scheduler
IMAGE_TAG    ?= $(VERSION)-k8s$(K8S)
# test-fuzz runs each target for this many executions: a count, not a
# duration, since a timed run on a loaded machine can end in a bare
# "context deadline exceeded" from the fuzzing engine.
FUZZTIME     ?= 100000x
# fuzz-long runs each fuzz target for this many executions.
FUZZ_EXECS   ?= 10000000
# The packages test-fuzz instruments for coverage guidance: this module's
# alone. A short run by count gains little from guidance inside the
# parsers it feeds (the standard library's, distribution's, yaml's), and
# instrumenting them changes their compiled output, so every package above
# them (most of Kubernetes) compiles once more: a full compile on a machine
# with empty Go caches. fuzz-long instruments them too (hack/fuzz.sh's
# INSTRUMENT).
FUZZ_INSTRUMENT_SHORT ?= $(shell awk '$$1 == "module" {print $$2 "/..."; exit}' go.mod)
# The time the fuzzer may spend shrinking each new input. Go's default, 60s,
# stalls every worker for up to a minute per new input early in a run.
FUZZMINIMIZETIME ?= 2000x

# Every fuzz target, as package:Target. FUZZ=FuzzImageOf (names, space
# separated) narrows test-fuzz and fuzz-long to those targets.
FUZZ_TARGETS := ./pkg/windows:FuzzImageOf ./pkg/windows:FuzzParseKernelVersion \
                ./pkg/windows:FuzzParseOSVersion \
                ./pkg/apis/config/scheme:FuzzDecodeWindowsAwareArgs \
                ./pkg/imageinspect:FuzzParseRef ./pkg/imageinspect:FuzzKindOf \
                ./pkg/imageinspect:FuzzParseRetryAfter ./pkg/imageinspect:FuzzIndexPlatforms \
                ./pkg/imageinspect:FuzzAddressGuard ./pkg/imageinspect:FuzzTokenRealm \
                ./pkg/imageinspect:FuzzErrorDetail \
                ./internal/manifest:FuzzDecode \
                ./pkg/podneeds:FuzzDecide ./pkg/plugins/windowsaware:FuzzFilterFollowsDecision \
                ./pkg/explain:FuzzReadManifests \
                ./pkg/publish:FuzzPublish ./pkg/wellknown:FuzzParseRecord \
                ./pkg/webhookcert:FuzzParse ./pkg/reviewgate:FuzzCount ./pkg/safetext:FuzzText \
                ./pkg/registryhost:FuzzParseEndpoint ./pkg/warnings:FuzzReviewDecode
FUZZ         ?=
fuzz_selected = $(if $(FUZZ),$(filter $(addprefix %:,$(FUZZ)),$(FUZZ_TARGETS)),$(FUZZ_TARGETS))

.PHONY: help
help: ## List the targets.
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-18s %s\n", $$1, $$2}'

.PHONY: build
build: ## Build bin/scheduler, bin/admission and the kubectl plugin bin/kubectl-windows_aware, static binaries (K8S=1.36: for that Kubernetes minor).
	@mkdir -p $(BIN_DIR)
	$(GO) build $(K8S_GOFLAGS) -ldflags "$$(hack/ldflags.sh)" -o $(BIN_DIR)/ ./cmd/scheduler ./cmd/admission ./cmd/kubectl-windows_aware

.PHONY: test
# The internal packages whose tests an older minor runs: those that import
# Kubernetes' own packages (k8s.io/kubernetes), where a minor differs. The
# others are the tests' tooling (registry, PKI, processes, fixtures, the
# oracle), which import no Kubernetes package but the API types, and are
# the same on every minor: the newest runs their tests, and go vet compiles
# them for every minor (test-minors).
MINOR_INTERNAL_TESTS := ./internal/localwebhook/...

# TEST_RULES=0 leaves the alerting rules out of make test (CI: .ci/run says
# why); make test-rules runs them alone.
TEST_RULES   ?= 1

test: test-unit $(if $(filter 1,$(TEST_RULES)),test-rules) test-fuzz test-integration test-upstream ## Everything: unit, fuzz and integration tests, the alerting rules, and upstream's scheduler_perf workloads with the plugins.

.PHONY: test-unit
test-unit: build ## Unit tests, the shipped-config and chart tests (test/chart) and the --version check (K8S=...: of that minor; benchreport's and internal/'s tests, the same for every minor, with the newest only).
	$(GO) test $(K8S_GOFLAGS) ./pkg/... ./cmd/... $(if $(filter $(K8S),$(NEWEST)),./internal/...,$(MINOR_INTERNAL_TESTS)) ./test/chart/...
	$(if $(filter $(K8S),$(NEWEST)),cd hack/tools/benchreport && $(GO) test ./...)
	@v=$$($(BIN_DIR)/scheduler --version); echo "$$v"; echo "$$v" | grep -qF 'Kubernetes $(K8S_VERSION)+windows-aware.' \
	  || { echo "scheduler --version does not name Kubernetes $(K8S_VERSION) and the project version" >&2; exit 1; }
	@v=$$($(BIN_DIR)/admission --version); echo "$$v"; echo "$$v" | grep -qF '(Kubernetes $(K8S_VERSION),' \
	  || { echo "admission --version does not name Kubernetes $(K8S_VERSION)" >&2; exit 1; }

# The alerting rules of manifests/monitoring, through promtool (built once
# into bin/tools, as the other tools): each must parse and fire on the
# recorded samples of hack/tools/promtool/rules_test.yaml.
.PHONY: test-rules
test-rules: ## Check and unit-test the alerting rules of manifests/monitoring with promtool (hack/tools/promtool).
	hack/build-tools.sh promtool
	PROMTOOL=$(TOOLS_DIR)/promtool hack/tools/promtool/test-rules.sh

# Each older minor's binary goes to bin/k8s<minor>/scheduler: bin/scheduler
# stays the newest minor's build, which the other targets run.
.PHONY: test-minors
test-minors: ## test-unit and go vet on every older Kubernetes minor (make test covers the newest).
	@set -e; for minor in $$(hack/k8s.sh minors); do \
	  [ "$$minor" = "$$(hack/k8s.sh newest)" ] && continue; \
	  echo "=== Kubernetes $$minor"; \
	  $(MAKE) --no-print-directory test-unit K8S=$$minor BIN_DIR=$(BIN_DIR)/k8s$$minor TOOLS_DIR=$(TOOLS_DIR); \
	  $(GO) vet $$(hack/k8s.sh goflags $$minor) ./...; \
	done

.PHONY: test-race
test-race: ## Unit tests of the packages under pkg/ with the race detector (needs a C compiler).
	CGO_ENABLED=1 $(GO) test -race ./pkg/...

.PHONY: test-fuzz
test-fuzz: ## A short run of every fuzz target (FUZZTIME each; hack/fuzz.sh says how).
	GO="$(GO)" BIN_DIR="$(BIN_DIR)" FUZZMINIMIZETIME=$(FUZZMINIMIZETIME) INSTRUMENT="$(FUZZ_INSTRUMENT_SHORT)" \
	  hack/fuzz.sh $(FUZZTIME) $(fuzz_selected)

.PHONY: fuzz-long
fuzz-long: ## Every fuzz target until FUZZ_EXECS executions (10,000,000) each.
	GO="$(GO)" BIN_DIR="$(BIN_DIR)" FUZZMINIMIZETIME=$(FUZZMINIMIZETIME) hack/fuzz.sh $(FUZZ_EXECS)x $(fuzz_selected)

# The tools make demo runs (the integration tests need every tool).
DEMO_TOOLS := etcd kube-apiserver kubectl demo-controllers kwok registry

.PHONY: tools
tools: ## Build etcd, kube-apiserver, kube-controller-manager, kubectl, kwok, helm, the OCI registry, Karpenter's kwok provider and promtool into bin/tools (K8S=1.36: that minor's kube-* into bin/tools/k8s1.36).
	hack/build-tools.sh

.PHONY: test-integration
# The tools each step runs, built only when a step needs them: promtool
# is make test-rules' alone, etcd the benchmarks' alone.
INTEGRATION_TOOLS := etcd kube-apiserver kube-controller-manager kubectl demo-controllers kwok helm registry karpenter-kwok
BENCH_TOOLS       := etcd

test-integration: build ## Integration tests against a real kube-apiserver, etcd and OCI registry (K8S=1.36: of that minor).
	hack/build-tools.sh $(INTEGRATION_TOOLS)
	@echo "$$($(BIN_DIR)/scheduler --version | sed 's/^Kubernetes/scheduler/') against kube-apiserver $$(PATH="$(K8S_TOOLS_DIR):$(TOOLS_DIR):$$PATH" kube-apiserver --version | sed 's/^Kubernetes //')"
	PATH="$(K8S_TOOLS_DIR):$(TOOLS_DIR):$$PATH" WINDOWS_AWARE_BIN_DIR=$(BIN_DIR) \
	  $(GO) test $(K8S_GOFLAGS) -count=1 -timeout 30m ./test/integration/...

# Upstream's scheduler_perf workloads run on the newest minor only: the
# harness changes with every minor (hack/upstream.sh).
.PHONY: test-upstream
test-upstream: ## Upstream's own scheduler_perf integration-test workloads with the windows-aware plugins enabled (hack/upstream.sh).
	GO="$(GO)" TOOLS_DIR="$(TOOLS_DIR)" hack/upstream.sh test

.PHONY: bench-upstream
bench-upstream: ## Upstream's performance workloads, stock and with the plugins: ratios by average, by span and by the scheduler's CPU per pod (heavy; UPSTREAM_BENCH narrows).
	GO="$(GO)" TOOLS_DIR="$(TOOLS_DIR)" hack/upstream.sh bench

# The tools first: hack/build-tools.sh says which it must build and about
# how long that takes before it starts, and the scheduler's build then
# reuses most of what kube-apiserver's compiled.
.PHONY: demo
demo: ## Run a local cluster with 5,000 simulated nodes and the seed workloads (the first run builds its tools: minutes).
	DEMO_TOOLS="$(DEMO_TOOLS)" hack/demo.sh up

.PHONY: demo-down
demo-down: ## Stop everything make demo started.
	hack/demo.sh down

.PHONY: bench
bench: ## All benchmarks at full size, several counts, for benchstat.
	hack/build-tools.sh $(BENCH_TOOLS)
	hack/bench.sh full

.PHONY: bench-ci
bench-ci: ## Both benchmark levels at 5,000 nodes, short count.
	hack/build-tools.sh $(BENCH_TOOLS)
	hack/bench.sh ci

.PHONY: bench-report
bench-report: ## Write docs/benchmarks.md from the last make bench.
	hack/bench.sh report

.PHONY: generate
generate: ## Regenerate deep-copy, conversion and defaulting code.
	hack/update-codegen.sh

.PHONY: verify
verify: ## Check licence headers, formatting, vet and generated code.
	hack/verify-boilerplate.sh
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...
	cd hack/tools/benchreport && $(GO) vet ./...
	hack/update-codegen.sh && git diff --exit-code -- pkg/apis

CHART        := charts/windows-aware-scheduler

.PHONY: verify-chart
verify-chart: ## Lint and render the Helm chart, publish mode on and off; hold it to manifests/beside and manifests/publish, the args and the stock RBAC; its README up to date.
	hack/build-tools.sh helm
	$(TOOLS_DIR)/helm lint --strict $(CHART)
	$(TOOLS_DIR)/helm lint --strict $(CHART) --set hostNetwork=true
	$(TOOLS_DIR)/helm lint --strict $(CHART) --set metrics.serviceMonitor.enabled=true --set podAntiAffinity=required
	$(TOOLS_DIR)/helm lint --strict $(CHART) --set pluginArgs.imageResolution.scope=Windows --set 'pluginArgs.imageResolution.registries[0].host=mcr.microsoft.com' \
		--set pluginArgs.imageResolution.credentials.podPullSecrets=true --set 'imageResolution.pullSecretNamespaces={team-a}' \
		--set imageResolution.credentials.dockerConfigSecret=regcred --set imageResolution.caBundle.configMap=corp-ca
	$(TOOLS_DIR)/helm lint --strict $(CHART) --set publish.enabled=true
	$(TOOLS_DIR)/helm lint --strict $(CHART) --set publish.enabled=true --set networkPolicy.enabled=true \
		--set 'networkPolicy.metricsFrom[0].namespaceSelector.matchLabels.kubernetes\.io/metadata\.name=monitoring' \
		--set 'networkPolicy.egress[0].ports[0].port=443'
	$(TOOLS_DIR)/helm lint --strict $(CHART) --set publish.enabled=true --set publish.certManager.enabled=true --set publish.metricsAuth=none
	$(TOOLS_DIR)/helm lint --strict $(CHART) --set publish.enabled=true --set publish.certManager.enabled=true
	$(TOOLS_DIR)/helm lint --strict $(CHART) --set publish.enabled=true --set publish.certManager.enabled=true \
		--set publish.certManager.issuerRef.name=corp-ca --set publish.certManager.issuerRef.kind=ClusterIssuer
	$(TOOLS_DIR)/helm template windows-aware-scheduler $(CHART) --namespace kube-system >/dev/null
	$(TOOLS_DIR)/helm template windows-aware-scheduler $(CHART) --namespace kube-system --set publish.enabled=true >/dev/null
	$(TOOLS_DIR)/helm template windows-aware-scheduler $(CHART) --namespace kube-system --set publish.enabled=true \
		--set publish.certManager.enabled=true >/dev/null
	HELM=$(TOOLS_DIR)/helm WINDOWS_AWARE_REQUIRE_HELM=1 $(GO) test -count=1 -run '^Test(Chart|RBAC|SchedulerManifests)' ./test/chart/
	$(GO) run ./internal/chartdocs/cmd/chart-docs -chart $(CHART) -check

.PHONY: chart-docs
chart-docs: ## Write the chart README's values reference from the comments of its values.yaml.
	$(GO) run ./internal/chartdocs/cmd/chart-docs -chart $(CHART)

# make image PLATFORMS=linux/amd64,linux/arm64 builds one image for both
# (the Dockerfile's build stage cross-compiles; nothing is emulated). Empty:
# the builder's own platform, loaded into the local image store. A
# multi-platform image goes where IMAGE_OUTPUT says, e.g. --push (not every
# image store can load one).
comma        := ,
PLATFORMS    ?=
IMAGE_OUTPUT ?= $(if $(findstring $(comma),$(PLATFORMS)),,--load)

.PHONY: image
image: ## Build the container image, tagged <VERSION>-k8s<minor> (K8S=1.36: for that minor; PLATFORMS=linux/amd64,linux/arm64; needs Docker buildx).
	docker buildx build $(if $(PLATFORMS),--platform $(PLATFORMS) )--build-arg VERSION=$(VERSION) --build-arg K8S=$(K8S) \
	  --build-arg GIT_COMMIT=$$(git rev-parse HEAD) -t $(IMAGE):$(IMAGE_TAG) $(IMAGE_OUTPUT) .

# The platforms make cross builds (the image's and the release's).
CROSS_PLATFORMS ?= linux/amd64 linux/arm64
CROSS_DIR       ?= _output/cross

.PHONY: cross
cross: ## Cross-compile the scheduler and admission for CROSS_PLATFORMS into _output/cross/<os>-<arch>/ (K8S=1.36: for that minor).
	@set -e; for p in $(CROSS_PLATFORMS); do \
	  echo "=== $$p"; \
	  GOOS=$${p%/*} GOARCH=$${p#*/} CGO_ENABLED=0 $(GO) build $(K8S_GOFLAGS) -trimpath -ldflags "$$(hack/ldflags.sh)" \
	    -o $(CROSS_DIR)/$${p%/*}-$${p#*/}/ ./cmd/scheduler ./cmd/admission; \
	done

# make release: what hack/release.sh says, of the newest minor unless
# RELEASE_MINORS names others ("1.36 1.37"). HELM=/path/to/helm uses that
# helm instead of building one into TOOLS_DIR.
HELM           ?= $(TOOLS_DIR)/helm
RELEASE_MINORS ?= $(K8S)
RELEASE_DIR    ?= _output/release/$(VERSION)

.PHONY: release
release: ## Write _output/release/<VERSION>/: scheduler and admission archives (linux/amd64, linux/arm64), the kubectl plugin's, the chart, SHA256SUMS.
	$(if $(filter $(TOOLS_DIR)/helm,$(HELM)),hack/build-tools.sh helm)
	GO="$(GO)" HELM="$(HELM)" RELEASE_MINORS="$(RELEASE_MINORS)" RELEASE_DIR="$(RELEASE_DIR)" hack/release.sh

.PHONY: clean
clean: ## Remove build output (tools included).
	rm -rf $(BIN_DIR) _output
