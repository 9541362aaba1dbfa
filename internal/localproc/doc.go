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

// Package localproc holds what the programs this repository starts on the
// local machine for tests and the demo (the control plane, the registry)
// share: starting and stopping them in process groups of their own, pid
// files that let a later run stop a detached one (make demo-down), free
// loopback ports, handed out once per process whatever package asks, and
// the tails of their logs for error messages.
package localproc
