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
// windows-aware.x-k8s.io/gated=true, never every pod of the cluster) it
// asks the registries through the scheduler plugin's own resolver, then
// writes what the profile decides and removes the gate in one update, as
// the rules for gated pods allow (package publish builds that update).
//
// When the registry fails, or has not answered gateTimeout after the pod
// was created (or after the controller started, for older pods), the gate
// is removed under onFailure, with one Warning Event that names the image
// and the registry's error: no pod stays gated for ever. A conflict
// between the pod's own constraints and what its images need removes the
// gate and writes nothing; the scheduler reports the conflict.
//
// The controller runs in the admission binary, on the replica that holds
// its Lease (leader.go), so that two replicas never race on a pod.
package ungate
