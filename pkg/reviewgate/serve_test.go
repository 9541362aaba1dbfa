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
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/testutil"
	"k8s.io/klog/v2"
)

// TestServer: a Server answers a review by Read where Read answers it,
// else by Admit of the full decode, in a review of the request's type,
// and counts each answer by its outcome; a body that is no review with a
// request, or longer than it reads, gets 400 and counts as Error; another
// method gets 405, uncounted.
func TestServer(t *testing.T) {
	counter := metrics.NewCounterVec(&metrics.CounterOpts{Name: "test_server_reviews_total", Help: "reviews"}, []string{"outcome"})
	metrics.NewKubeRegistry().MustRegister(counter)
	s := &Server[string]{
		Admit: func(_ klog.Logger, req *admissionv1.AdmissionRequest) (*admissionv1.AdmissionResponse, string) {
			return &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true}, "admitted"
		},
		Read: func(_ klog.Logger, body []byte) (metav1.TypeMeta, *admissionv1.AdmissionResponse, string, bool) {
			if !bytes.Contains(body, []byte(`"read"`)) {
				return metav1.TypeMeta{}, nil, "", false
			}
			return metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}, &admissionv1.AdmissionResponse{UID: "read", Allowed: false}, "read", true
		},
		Counter: counter,
		Error:   "error",
	}
	h := s.Handler(klog.Background())
	tests := []struct {
		name, method, body string
		code               int
		// uid and apiVersion are the answer's; outcome, what is counted.
		uid, apiVersion, text, outcome string
	}{
		{name: "full decode", method: http.MethodPost, body: `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u"}}`,
			code: http.StatusOK, uid: "u", apiVersion: "admission.k8s.io/v1", outcome: "admitted"},
		{name: "no type: admission.k8s.io/v1", method: http.MethodPost, body: `{"request":{"uid":"u"}}`,
			code: http.StatusOK, uid: "u", apiVersion: "admission.k8s.io/v1", outcome: "admitted"},
		{name: "read", method: http.MethodPost, body: `{"request":{"uid":"read"}}`, code: http.StatusOK, uid: "read", apiVersion: "admission.k8s.io/v1", outcome: "read"},
		{name: "no request", method: http.MethodPost, body: `{"apiVersion":"admission.k8s.io/v1"}`, code: http.StatusBadRequest,
			text: "not an AdmissionReview with a request: <nil>", outcome: "error"},
		{name: "not JSON", method: http.MethodPost, body: `{`, code: http.StatusBadRequest, text: "not an AdmissionReview with a request: unexpected end of JSON input", outcome: "error"},
		{name: "too long", method: http.MethodPost, body: `{"request":{"uid":"u"},"x":"` + strings.Repeat("x", DefaultMaxBodyBytes) + `"}`,
			code: http.StatusBadRequest, text: "cannot read the request body", outcome: "error"},
		{name: "GET", method: http.MethodGet, code: http.StatusMethodNotAllowed, text: "POST an AdmissionReview"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			counter.Reset()
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(tt.method, "/", strings.NewReader(tt.body)))
			if rec.Code != tt.code {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.code, rec.Body)
			}
			if tt.code == http.StatusOK {
				var out admissionv1.AdmissionReview
				if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
					t.Fatal(err)
				}
				if out.Response == nil || string(out.Response.UID) != tt.uid || out.APIVersion != tt.apiVersion || out.Kind != "AdmissionReview" {
					t.Errorf("answered %s", rec.Body)
				}
			} else if got := strings.TrimSpace(rec.Body.String()); got != tt.text {
				t.Errorf("answered %q, want %q", got, tt.text)
			}
			for _, o := range []string{"admitted", "read", "error"} {
				want := 0.0
				if o == tt.outcome {
					want = 1
				}
				if got, err := testutil.GetCounterMetricValue(counter.WithLabelValues(o)); err != nil || got != want {
					t.Errorf("outcome %s counted %v (%v), want %v", o, got, err, want)
				}
			}
		})
	}
}
