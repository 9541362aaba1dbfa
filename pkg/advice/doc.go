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
// run: what to change in a pod that contradicts itself, which pool a
// cluster lacks for a pod no node runs, and how pools and Windows builds
// are named. The kubectl plugin's explain (package explain) and the
// admission webhook's warnings (package publish, which names the pools of
// its cluster inventory through package inventory) all say them, so that
// a warning at kubectl apply and explain's fix read alike. advice imports
// none of them (only podneeds and windows); explain imports publish for
// its record of what publish mode wrote into a pod, and nothing of its
// words.
package advice
