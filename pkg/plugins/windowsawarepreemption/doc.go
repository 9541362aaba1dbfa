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

// Package windowsawarepreemption holds the WindowsAwarePreemption plugin:
// upstream's DefaultPreemption, which the windows-aware profile runs in its
// place, with one addition at PreEnqueue.
//
// With asynchronous preemption (on by default) DefaultPreemption's
// PreEnqueue holds a preemptor while its preemption's API calls are in
// flight, and upstream activates the preemptor when they end only if one
// failed or a victim was preempted in memory. When the last victim was
// already gone from the API server (its deletion event arrived while the
// pod was held, and the call returned NotFound), nothing requeues the pod:
// it waits for the unschedulable pool's 5-minute flush
// (kubernetes/kubernetes issue 141694; docs/benchmarks-findings.md,
// "preemptionbasic-stranded"). Upstream's proposed fix activates the
// preemptor whenever the asynchronous preemption ends. This plugin does the
// same from outside: when DefaultPreemption's PreEnqueue holds a pod, one
// goroutine per pod asks it again every pollInterval and activates the pod
// as soon as it lets the pod through. The goroutine ends then, when the
// pod is deleted or bound, or after watchBound; Activate on a pod already
// queued does nothing. TestPreemptorHeldWhileItsVictimsGo, in
// test/integration, makes the race happen every time and shows the preemptor
// bound with this plugin and left pending without it.
//
// Everything else (PostFilter, the events it registers, PodGroupPostFilter
// on the minors that have it) is DefaultPreemption's own, and its args are
// DefaultPreemptionArgs, configured under this plugin's name. The plugin
// goes once a Kubernetes patch release of every minor the binary is built
// for carries upstream's fix.
package windowsawarepreemption
