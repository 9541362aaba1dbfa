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

package wellknown

// The annotations publish mode writes.
const (
	// AnnotationPublished is the annotation in which a published pod
	// records what was written into it and why, as a Record.
	AnnotationPublished = "windows-aware.x-k8s.io/published"

	// AnnotationTemplate is the annotation in which a workload records
	// what was written into its pod template, as a Record. It is on the
	// workload, not in the template, so that writing it never changes the
	// pods.
	AnnotationTemplate = "windows-aware.x-k8s.io/template-published"
)
