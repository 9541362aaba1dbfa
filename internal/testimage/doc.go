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

// Package testimage describes and builds the synthetic images the tests
// and make demo push to a registry: single-platform images whose config
// names an OS, architecture and os.version, and Docker manifest lists and
// OCI indexes of them, with the shapes real registries hold (entries that
// list no os.version, or none anywhere; entries without a platform;
// BuildKit's attestation entries; indexes of indexes).
//
// It is the one description of such images for both test registries, and
// serves either:
//
//   - pkg/imageinspect/registrytest, go-containerregistry's registry in
//     process, for unit tests: no binary to build, faults and request
//     counters in the handler;
//   - internal/registryserver, the distribution registry (the binary behind
//     the registry:3 image) on loopback, for the integration tests and make
//     demo: the registry the resolver meets in a cluster, TLS and
//     htpasswd, and a fault proxy in front of it.
//
// Every build gives new digests (the layers are random), so that a re-push
// under the same tag is a new image. The package has no scheduler-framework
// imports and none of package testing, so that make demo may build with it.
package testimage
