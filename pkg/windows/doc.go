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

// Package windows holds the domain rules of Windows container placement,
// free of any scheduler framework type so that it reads next to the facts it
// encodes:
//
//   - which Windows build an image needs, read from the tokens of its tag
//     (ltsc2019, 1809, 10.0.17763.437, ...) and, where it shows Windows or
//     a release, of its repository path, see [Catalog.ImageOf];
//   - which host build runs which image build under process isolation, see
//     [Mode.Runs];
//   - how a node reports its build (the node.kubernetes.io/windows-build
//     label, else the kernel version), see [ParseBuild] and
//     [ParseKernelVersion].
//
// Nothing here allocates on the paths the scheduler calls per node.
package windows
