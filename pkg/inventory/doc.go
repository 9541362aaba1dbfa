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

// Package inventory keeps what a cluster offers pods, as the
// windows-aware decision reads it: its nodes grouped into classes of one
// pool, OS, architecture, Windows build and set of taints, each with its
// count, and the Karpenter NodePools whose nodes it can get. It is fed by
// informers and holds only that: an informer's transform (Project) strips
// every node down to the few labels, taints and kernel version the
// decision reads before the informer stores it, so that 5,000 nodes cost
// a few MiB, not the hundreds a store of whole Node objects takes.
//
// Asking whether a pod can run anywhere (Snapshot.Judge) costs one
// verdict per class, never one per node: a cluster has a handful of
// classes however many nodes it has. The admission webhook's warnings
// (package publish) ask it at every review.
package inventory
