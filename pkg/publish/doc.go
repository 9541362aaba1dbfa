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

// Package publish writes into a pod, at its creation, the constraints the
// windows-aware profile enforces on it, so that components that cannot run
// the profile's Filter (cluster autoscalers, Karpenter, EKS's VPC resource
// webhook) see them: the kubernetes.io/os node selector, the Windows builds
// whose hosts run the pod's images as required node affinity, the exact
// build as a preferred term, tolerations of the OS taints the profile
// tolerates implicitly, and an annotation that records what was written.
//
// What to write is the decision of package podneeds, the one the
// scheduler's plugin makes (Decide, HostBuilds, OSTolerations), never a
// copy of its rules; this package imports no scheduler plugin. Publishing
// only adds: a key
// the pod already sets is left as it is, and a pod whose own constraints
// contradict the decision is left untouched, for the scheduler to report.
// A pod the scheduler would hold until a registry tells its images'
// platforms gets a scheduling gate instead of a build.
//
// Publisher.Publish changes a pod in place (publisher.go); Admit answers
// an admission request with a JSON patch (admission.go, webhook.go) for
// the mutating webhook of cmd/admission. The same writer serves workload
// pod templates (templates.go, templateadmission.go: the /templates path)
// and the namespace and cluster-wide opt-in (optin.go). The apply-time
// warnings are package warnings': HandlerWithWarnings answers them, for
// the profile's pods, in the review /mutate answers anyway (a PodWarner).
package publish
