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

// Package chartdocs writes the values reference of a Helm chart's README
// from the comments of its values.yaml, so that what the README says about
// a value, and its default, cannot drift from the file helm reads. Every
// value must carry a comment: a value without one is an error, not a row
// with an empty description.
package chartdocs
