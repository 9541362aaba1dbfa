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

package reviewgate

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-base/metrics"
	"k8s.io/klog/v2"
)

// Server serves one path's AdmissionReview v1 requests: it reads a POST's
// body, of at most DefaultMaxBodyBytes (the gate, in front, refuses a
// longer one first), decodes the review, has the path answer its request
// and writes the answer in a review of the request's apiVersion and kind.
// It counts every review in Counter, by the path's outcome. A body it
// cannot read, or that is not a review with a request, gets 400 and
// counts as Error: the API server sent something else than a review, and
// the webhook's failurePolicy decides. Another method than POST gets 405,
// uncounted.
type Server[O ~string] struct {
	// Admit answers a review's request.
	Admit func(klog.Logger, *admissionv1.AdmissionRequest) (*admissionv1.AdmissionResponse, O)
	// Read, when set, answers a body as the path reads it, cheaper than
	// the full decode (a partial decoder of the fields the path reads):
	// the review's type, the answer and its outcome. A body it does not
	// answer (ok false) is decoded in full and answered by Admit.
	Read func(logger klog.Logger, body []byte) (review metav1.TypeMeta, resp *admissionv1.AdmissionResponse, outcome O, ok bool)
	// Counter counts the reviews, by the outcome label.
	Counter *metrics.CounterVec
	// Error is the outcome of a body that is not a review with a request.
	Error O
}

// Handler is the Server, logging with logger.
func (s *Server[O]) Handler(logger klog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.serve(logger, w, r) })
}

func (s *Server[O]) serve(logger klog.Logger, w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST an AdmissionReview", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, DefaultMaxBodyBytes+1))
	if err != nil || len(body) > DefaultMaxBodyBytes {
		s.Counter.WithLabelValues(string(s.Error)).Inc()
		http.Error(w, "cannot read the request body", http.StatusBadRequest)
		return
	}
	var typeMeta metav1.TypeMeta
	var resp *admissionv1.AdmissionResponse
	var outcome O
	ok := false
	if s.Read != nil {
		typeMeta, resp, outcome, ok = s.Read(logger, body)
	}
	if !ok {
		var review admissionv1.AdmissionReview
		if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
			s.Counter.WithLabelValues(string(s.Error)).Inc()
			http.Error(w, fmt.Sprintf("not an AdmissionReview with a request: %v", err), http.StatusBadRequest)
			return
		}
		typeMeta = review.TypeMeta
		resp, outcome = s.Admit(logger, review.Request)
	}
	s.Counter.WithLabelValues(string(outcome)).Inc()
	writeReview(w, logger, typeMeta, resp)
}

// writeReview answers with resp, in a review of typeMeta's apiVersion and
// kind, admission.k8s.io/v1's where it names none.
func writeReview(w http.ResponseWriter, logger klog.Logger, typeMeta metav1.TypeMeta, resp *admissionv1.AdmissionResponse) {
	out := admissionv1.AdmissionReview{TypeMeta: typeMeta, Response: resp}
	if out.APIVersion == "" {
		out.APIVersion, out.Kind = admissionv1.SchemeGroupVersion.String(), "AdmissionReview"
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(&out); err != nil {
		logger.Error(err, "Writing the admission response")
	}
}
