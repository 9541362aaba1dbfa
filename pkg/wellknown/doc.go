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

// Package wellknown is the one home of the names the project's programs
// share with each other and with the cluster: the labels and annotations
// they read and write, the scheduling gate, the reasons of their Events,
// the published record's JSON and the chart's ConfigMap. The scheduler's
// plugins, the webhooks, the gate remover, the kubectl plugin and the
// tests name them from here, so that none of them imports another program's
// package for a name, and a name is spelled once.
//
// It is a leaf: it imports nothing of the project, and TestLayering
// (pkg/podneeds) keeps it so. A name that is only a component's own (its
// log words, its metrics' values) stays in that component.
package wellknown
