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

// Package bindguard holds the BindGuard plugin: a last look at a node's
// room before a pod is bound to it, for a scheduler that binds beside
// another.
//
// Two schedulers binding onto the same nodes each assume their pods in
// their own cache, and each learns of the other's binds only when its
// informer sees them: under bursts, and with the API server a network hop
// away, both fill the same room, and the kubelet rejects the pod that
// arrives second (OutOfcpu, OutOfmemory). At Reserve, BindGuard notes the
// pods the scheduler's cache holds on the chosen node (its own pods still
// being bound among them); at PreBind it lists the pods the API server
// holds on the node (a consistent read, which the API server's watch cache
// serves from its spec.nodeName index) and asks package noderoom whether
// the pod still fits among both. When it no longer does, the bind is
// refused: the framework unreserves the pod and retries it after a
// backoff, when the scheduler's cache knows the other scheduler's pods. A
// read that fails or times out lets the bind go on, as without the plugin.
//
// It cannot stop the other scheduler binding after us onto the room we
// took, and a read one round trip before the bind sees little more than
// the cache did when both schedulers bind within a round trip of each
// other: measured beside the stock scheduler under bursts, it did not
// lessen overcommit (docs/install.md). It helps where this scheduler's
// informer lags the API server by more than a round trip. It is off unless
// a profile enables it; the cluster-wide opt-in, one scheduler for the
// pods, is the fix.
package bindguard
