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

// Package warnings is the warnings webhook of cmd/admission: at the
// creation of a pod or a workload, or a change of a workload's pod
// template, it tells why the pod can run on no node the cluster has or
// can get (no node of its OS, none of a build that runs its images, a
// node taint, or a conflict of the pod's own), in explain's words
// (package advice), from the nodes of the node inventory (package
// inventory). It decides by the decision of package podneeds, the one the
// scheduler's plugin makes, and imports no scheduler plugin.
//
// The warnings admit the object, with a warning of at most MaxLength
// characters a line (lines.go); in a namespace labelled wellknown.LabelEnforce=true
// they refuse it instead. Warner.Warnings judges a pod (warnings.go);
// Warner.Admit and Warner.Handler answer an AdmissionRequest and an
// AdmissionReview (review.go), reading only the fields they judge of it
// (decode.go), and count each answer in the metric Reviews. The publish
// webhook's /mutate/warnings gives the same warnings of the profile's pods
// through Warner.PodWarnings (a publish.PodWarner).
package warnings
