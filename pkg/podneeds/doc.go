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

// Package podneeds decides what a pod needs of a node: the OS, the Windows
// builds its images run on, where each of those came from, and whether the
// pod contradicts itself. It is the one home of that decision and of the
// node-fit rule built on it (Decision.Verdict). The scheduler's plugins, the
// admission webhook, the controller that removes scheduling gates and
// explain all ask it, so that they never disagree on which nodes can run a
// pod.
//
// It imports no scheduler framework and no client. Registry facts reach it
// through Facts, which the caller provides: the scheduler's resolver, a
// controller that waits for the registry, or nothing at all (tags alone).
// Facts that also implement KnownFacts tell what is already known of the
// images of pods they do not resolve, so that a pod that selects Linux with
// an image known to be Windows-only is a conflict wherever it is decided.
// The compatibility rules themselves (what a tag names, which host build
// runs which image build) live in package windows; this package feeds them
// from pods and nodes.
//
// Its rules are tested here, through its own API (New, Decide and the
// Decision's methods), not through the programs that ask it: those test
// what they do with a decision.
package podneeds
