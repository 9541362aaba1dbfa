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

// Package oracle says which nodes may run which pods, by the facts of
// docs/windows-facts.md written out by hand: a table of the images the demo,
// the benchmarks and the tests place, each with the OS and Windows build it
// needs, and the process-isolation rule of containerd and hcsshim.
//
// It deliberately imports neither package windows nor the plugins: the
// tests, the benchmarks and the demo's CHECK column hold the scheduler's
// placements against this package, so that a bug in the scheduler's tag
// reading or compatibility rule shows up as a disagreement instead of being
// copied into the expectation.
package oracle
