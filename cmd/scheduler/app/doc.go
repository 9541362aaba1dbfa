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

// Package app is what the scheduler binary adds to kube-scheduler, as
// upstream's cmd/kube-scheduler/app wires its own: the windows-aware
// plugins beside the in-tree ones, and their args in the scheduler's
// config scheme. cmd/scheduler builds its command from it, and the chart's
// and manifests' tests (test/chart) set the scheduler up from it, so that
// a configuration they accept is one the binary runs.
package app
