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

// Package registryserver runs the OCI distribution registry (the reference
// implementation behind the registry:3 image, built into bin/tools/registry
// by hack/build-tools.sh) on 127.0.0.1 for the integration tests and make
// demo: TLS with a throwaway CA, htpasswd (Basic) authentication, and
// storage in a directory of its own. Stop ends it by its pid. A fault proxy
// in front of it adds latency, holds requests until released, answers 429
// or 5xx, drops connections or refuses them, for testing how a client
// copes; the integration tests put one in front of the API server too, to
// hold a scheduler's call at a chosen moment.
//
// The images pushed to it are internal/testimage's, the one description of
// the test images, which registrytest serves too: make demo's (DemoImages)
// and the upgrade plan's (UpgradeImages) are tables of them.
//
// Which registry: this one where the test is of what a cluster meets (the
// real registry's answers, TLS and credentials, a process to start and
// stop); pkg/imageinspect/registrytest, go-containerregistry's registry in
// process, for unit tests, which must run without a built binary.
//
// The package has no scheduler-framework imports.
package registryserver
