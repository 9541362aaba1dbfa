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

// Package explain tells what the windows-aware profile decides about pod
// templates, from manifests before they are deployed or from live
// objects: the OS and Windows builds each needs, where each came from, the
// conflicts the scheduler would reject it with, and, given a cluster's
// nodes, how many nodes of each pool, OS and build fit, why the others do
// not, and what to change (fixes.go, in package advice's words, which the
// webhook's warnings say too).
//
// An Explainer holds the decider of one scheduler profile's args
// (profile.go). It reads manifests (manifests.go) or live objects
// (live.go), takes the pod template of every workload kind (templates.go),
// merges RuntimeClasses as their admission plugin does (runtimeclass.go),
// and asks the profile's decider (package podneeds) for the decision and
// each node's verdict (explain.go, nodes.go): the one decision the
// scheduler's plugin, publish mode and the webhook's warnings call, never
// a copy. It shows what publish mode recorded in a pod (published.go).
//
// It also plans a Windows Server upgrade (upgrade*.go: which workloads the
// move of a pool to another build breaks, and what blocks draining it;
// kubectl windows-aware upgrade-plan), judges where a DaemonSet's
// controller puts its pods (daemonset*.go: explain and status), and which
// pods on retiring nodes no other node runs (retiring.go: explain and
// status).
package explain
