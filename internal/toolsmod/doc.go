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

// Package toolsmod holds the tools modules that build kube-apiserver,
// kube-controller-manager, kubectl (hack/tools/go.mod) and kwok
// (hack/tools/kwok/go.mod) to the versions the product's go.mod selects
// for every module they share.
//
// Why: the Go build cache keys a compiled package by the versions of
// everything it imports. When both modules select the same versions, the
// Kubernetes packages that kube-apiserver's build compiles are the ones
// kwok, bin/scheduler, bin/admission and the kubectl plugin link, so a first
// make demo or CI run compiles them once, not twice. One differing
// version low in the graph (golang.org/x/net, say) is enough to compile
// most of Kubernetes again: minutes on 2 cores.
package toolsmod
