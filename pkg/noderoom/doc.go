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

// Package noderoom tells whether a node still has room for a pod, given
// every pod bound to it: the sums of their requests against the node's
// allocatable, for each resource the pod requests and for the pod count,
// as upstream's NodeResourcesFit counts them (requests with init
// containers, sidecars, overhead and pod-level resources, through
// k8s.io/component-helpers/resource).
//
// The scheduler's own cache answers the same question before a pod is
// assumed. This package answers it again at binding, from the pods the API
// server lists on the node: two schedulers binding onto the same nodes
// each count only the pods their cache knows of (package bindguard).
package noderoom
