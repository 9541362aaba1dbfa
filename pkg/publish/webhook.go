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

package publish

import (
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/component-base/metrics"
	"k8s.io/klog/v2"

	"github.com/windows-aware/windows-aware/pkg/reviewgate"
)

// Handler serves AdmissionReview v1 requests by Admit, counting each in
// Admissions. A body that is not a review gets 400: the API server sent
// something else than a review, and failurePolicy decides.
func (p *Publisher) Handler(logger klog.Logger) http.Handler {
	return p.handler(logger, Admissions, p.Admit)
}

// OptInHandler serves AdmissionReview v1 requests by AdmitOptIn, counting
// each in Admissions.
func (p *Publisher) OptInHandler(logger klog.Logger) http.Handler {
	return p.handler(logger, Admissions, p.AdmitOptIn)
}

// HandlerWithWarnings serves AdmissionReview v1 requests by
// AdmitWithWarnings, counting each in Admissions: the publish webhook's
// path for namespaces whose pods the warnings webhook leaves to it.
func (p *Publisher) HandlerWithWarnings(logger klog.Logger, warner PodWarner) http.Handler {
	return p.handler(logger, Admissions, func(logger klog.Logger, req *admissionv1.AdmissionRequest) (*admissionv1.AdmissionResponse, Outcome) {
		return p.AdmitWithWarnings(logger, req, warner)
	})
}

// TemplatesHandler serves AdmissionReview v1 requests for workloads by
// AdmitTemplate, counting each in TemplateAdmissions.
func (p *Publisher) TemplatesHandler(logger klog.Logger) http.Handler {
	return p.handler(logger, TemplateAdmissions, p.AdmitTemplate)
}

// handler serves the reviews of one path by admit, counting each in
// counter (reviewgate.Server).
func (p *Publisher) handler(logger klog.Logger, counter *metrics.CounterVec, admit func(klog.Logger, *admissionv1.AdmissionRequest) (*admissionv1.AdmissionResponse, Outcome)) http.Handler {
	s := &reviewgate.Server[Outcome]{Admit: admit, Counter: counter, Error: OutcomeError}
	return s.Handler(logger)
}
