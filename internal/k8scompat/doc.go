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

// Package k8scompat holds what the windows-aware plugins need that differs
// between the Kubernetes minors they are built for: a file for the newest
// minor and one, under the build tags k8s1_35 and k8s1_36, for the older
// ones. No other product code carries a build tag (tests that differ by
// minor carry the same ones).
package k8scompat
