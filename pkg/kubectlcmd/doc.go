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

// Package kubectlcmd holds the commands of kubectl windows-aware, the
// kubectl plugin: explain (what the windows-aware profile decides about pod
// templates, files or live objects, and which pools run them), status
// (gated pods, recent refusals, retiring nodes and the pods that cannot
// leave them, tags whose Windows builds changed, DaemonSets that miss or
// overreach their nodes, pods the kubelet rejected for want of room by the
// scheduler that bound them, and the cluster's pools by OS and build) and
// upgrade-plan (which workloads a Windows Server upgrade breaks, and what
// blocks draining).
// They take kubectl's own flags (k8s.io/cli-runtime), so that a kubeconfig,
// its context and a namespace are chosen as kubectl chooses them. explain
// and upgrade-plan share the flags that say which scheduler's args decide
// and how its registries are asked (SchedulerOptions); status has none of
// them, and reads the args explain finds without them.
//
// The scheduler binary's explain subcommand runs the same code, with the
// flags it has always had.
package kubectlcmd
