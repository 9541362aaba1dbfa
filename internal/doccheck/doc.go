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

// Package doccheck holds the checks that keep the project's Markdown pages
// readable as rendered: every fenced code block closed, and every YAML
// block one that parses, so that a reader can copy it as it stands; and
// true to the code: the args reference of docs/configure.md lists every
// field of WindowsAwareArgs with the scheduler's default; and true to one
// another: a measured figure (a throughput, a ratio, how long a make target
// took) is stated on one page only, which the others link to.
package doccheck
