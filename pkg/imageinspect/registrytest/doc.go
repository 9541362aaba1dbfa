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

// Package registrytest serves an in-process OCI registry on loopback for
// unit tests (go-containerregistry's registry behind an httptest server),
// with the faults real registries show (token auth, 429 with Retry-After,
// 5xx, latency, dropped connections) and request counters, and pushes
// synthetic Windows and Linux images and indexes with chosen os.version
// values into it.
//
// The images are internal/testimage's, the one description of the test
// images; Image, WindowsImage, Index and Nest build them for a test,
// failing it on error, and Entry and Flavour are testimage's types.
//
// Which registry: this one for unit tests, which need no binary built (make
// test-unit runs them) and inject faults and count requests in the handler
// itself. internal/registryserver runs the distribution registry, the one a
// cluster's resolver meets, as a process on loopback, for the integration
// tests and make demo; it needs bin/tools/registry.
package registrytest
