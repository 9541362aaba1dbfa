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

package warnings

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/pkg/apis/config/scheme"
	"github.com/windows-aware/windows-aware/pkg/workloadkind"
)

// FuzzReviewDecode feeds the handler any body, as a caller of the webhook
// may: it answers 200 or 400 and never panics; and where the body is a
// review whose object the API's own types decode too, its answer (allowed,
// the warnings) is the judgement of the whole decode (fullJudgement), so
// that the partial decoder cannot judge a review otherwise.
func FuzzReviewDecode(f *testing.F) {
	for _, images := range [][]string{{warnImg2016}, {"nginx:1.27"}, {"mcr.microsoft.com/windows/servercore:ltsc2019", "mcr.microsoft.com/windows/servercore:ltsc2022"}} {
		pod := fixture.Pod("p", "default-scheduler", images...)
		pod.Namespace = "web"
		raw, err := json.Marshal(pod)
		if err != nil {
			f.Fatal(err)
		}
		body, err := json.Marshal(admissionv1.AdmissionReview{
			TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
			Request: &admissionv1.AdmissionRequest{UID: "u", Operation: admissionv1.Create, Namespace: "web", Name: "p",
				Resource: workloadkind.Pod.RequestResource(), Kind: metav1.GroupVersionKind{Version: "v1", Kind: "Pod"}, Object: runtime.RawExtension{Raw: raw}},
		})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(body)
	}
	for _, s := range []string{``, `{`, `{"request":{}}`, `{"request":{"object":{"spec":{"template":{"spec":{"containers":[{"image":3}]}}}}}}`} {
		f.Add([]byte(s))
	}
	w, err := New("windows-aware", scheme.DefaultArgs(), warnCluster(), nil)
	if err != nil {
		f.Fatal(err)
	}
	h := w.Handler(klog.Background(), false)
	f.Fuzz(func(t *testing.T, body []byte) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body)))
		if rec.Code != http.StatusOK && rec.Code != http.StatusBadRequest {
			t.Fatalf("status %d for %q", rec.Code, body)
		}
		var full admissionv1.AdmissionReview
		if rec.Code != http.StatusOK || json.Unmarshal(body, &full) != nil || full.Request == nil {
			return
		}
		var got admissionv1.AdmissionReview
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || got.Response == nil {
			t.Fatalf("answer %q: %v", rec.Body, err)
		}
		outcome, lines, _ := fullJudgement(w, full.Request)
		if outcome == OutcomeError {
			// The API's types refuse what the partial decoder may read:
			// the answer of a body the API server never sends.
			return
		}
		if !got.Response.Allowed || !slices.Equal(got.Response.Warnings, lines) {
			t.Fatalf("the partial decode answered allowed=%v %q, the whole decode %s %q, for %q",
				got.Response.Allowed, got.Response.Warnings, outcome, lines, body)
		}
	})
}
