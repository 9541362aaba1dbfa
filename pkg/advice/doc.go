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

// Package advice holds the words that tell a user what would let a pod
// run: what to change in a pod that contradicts itself, and which pool a
// cluster lacks for a pod no node runs. The kubectl plugin's explain
// (package explain) and the admission webhook's warnings (package
// publish) both say them, so that a warning at kubectl apply and explain's
// fix read alike. advice imports neither; explain reads publish's record
// of what it wrote into a pod, and nothing of its words.
package advice
