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

// Package ungate is the controller that removes the scheduling gate the
// publish-mode webhook adds to pods whose images' platforms only their
// registry knows. For each pod it watches (those labelled
// windows-aware.x-k8s.io/gated=true, never every pod of the cluster), and
// each gated pod without the label that its periodic list of every pod
// finds (sweep.go: a pod created with the gate, a label removed since), it
// asks the registries through the resolver the scheduler uses (package
// imagefacts, with the same args; no scheduler plugin is imported), then
// writes what the profile decides and removes the gate in one JSON patch
// that touches those fields alone and applies only to the pod as read (its
// resourceVersion; patch.go), as the rules for gated pods allow (package
// publish builds the change).
//
// No pod stays gated for ever. When the registry fails, or has not
// answered gateTimeout after the pod was created (its age, so that a
// restarted controller or a new Lease holder ungates older pods at once),
// the gate is removed under onFailure, with one Warning Event that names
// the image and the registry's error. When the API server refuses the
// constraints (an admission policy, a webhook, a quota, validation), the
// gate is removed alone, with a Warning Event that names the refusal. A
// conflict between the pod's own constraints and what its images need
// removes the gate and writes nothing; the scheduler reports the conflict.
//
// The controller runs in the admission binary in its controller-only mode
// (admission --webhook=false --ungate), under a ServiceAccount of its own,
// on the replica that holds its Lease (leader.go), so that two replicas
// never race on a pod.
//
// RemoveAll (all.go) is what uninstalling publish mode runs (admission
// ungate-all, the chart's pre-delete hook): the gate and its label off
// every pod that carries them, nothing written, as no gate remover will be
// left to let those pods go.
package ungate
