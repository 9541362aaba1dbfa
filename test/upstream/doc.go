/*
Copyright The windows-aware Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package upstream runs the Kubernetes project's own scheduler_perf
// workloads (test/integration/scheduler_perf/*/performance-config.yaml of
// the k8s.io/kubernetes module go.mod pins) with the windows-aware plugins
// enabled in the profile their pods use, and holds them to what upstream
// holds them to: every pod they wait for is scheduled, no operation fails.
// Upstream's nodes carry no kubernetes.io/os label and its pods no
// .spec.os, so the run also shows the plugins leave such a cluster to the
// stock scheduler's placements.
//
// The workloads are read from the module cache at run time, never copied
// into the repository: each test case's scheduler configuration gets the
// plugins the way manifests/scheduler-config.yaml adds them to its
// windows-aware profile (merged into the workload's own configuration
// where it has one), and the harness runs them from a copy of upstream's
// directory, whose templates are named by relative paths.
//
// Upstream's integration runner takes no out-of-tree plugins, so the
// workloads run through its benchmark runner, one iteration each:
//
//	PATH=$PWD/bin/tools:$PATH go test ./test/upstream -run '^Test' \
//	    -bench BenchmarkUpstream -benchtime 1x -timeout 60m \
//	    -perf-scheduling-label-filter=integration-test,-performance
//
// make test-upstream runs that in two processes side by side, -shard 1/2
// and -shard 2/2, each with half of the workloads; make bench-upstream
// runs the performance workloads with the stock profile and with the
// plugins, and prints their throughputs side by side (hack/upstream.sh). The harness needs an
// etcd binary on PATH (make tools builds one into bin/tools).
//
// The harness changes with every Kubernetes minor: the tests build for the
// newest minor only (hack/k8s.sh).
package upstream
