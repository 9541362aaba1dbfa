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

// Package imagefacts is what registries tell of a pod's images, as the
// decision of package podneeds reads it: a running image resolver (package
// imageinspect) under one profile's imageResolution args, with the rules
// that say which pods' images are asked about (scope, tags that name no
// build, the allowlist), the onFailure policy, and, for programs that may
// wait, such as the controller that removes scheduling gates, Resolve.
//
// It imports no scheduler framework. The scheduler's plugin builds on it,
// adding what only a scheduler does: holding pods at PreEnqueue, waking
// them, and their Events.
package imagefacts
