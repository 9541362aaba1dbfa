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
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"

	"github.com/windows-aware/windows-aware/internal/synthetic"
	"github.com/windows-aware/windows-aware/pkg/apis/config/scheme"
	"github.com/windows-aware/windows-aware/pkg/inventory"
)

// benchReviews are AdmissionReview bodies of pod creations: the
// synthetic mix's pods as their users write them, one in ten an ltsc2016
// pod that no node of the synthetic cluster runs (warned).
func benchReviews(b *testing.B) [][]byte {
	b.Helper()
	var bodies [][]byte
	for i := range 100 {
		pod := synthetic.KindOf(i).Pod(fmt.Sprintf("p-%d", i), synthetic.WindowsAware)
		if i%10 == 9 {
			pod.Spec.Containers[0].Image = warnImg2016
		}
		pod.Namespace = "bench"
		raw, err := json.Marshal(pod)
		if err != nil {
			b.Fatal(err)
		}
		body, err := json.Marshal(admissionv1.AdmissionReview{
			TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
			Request: &admissionv1.AdmissionRequest{UID: "u", Operation: admissionv1.Create, Namespace: "bench", Name: pod.Name,
				Resource: podResource, Kind: metav1.GroupVersionKind{Version: "v1", Kind: "Pod"}, Object: runtime.RawExtension{Raw: raw}},
		})
		if err != nil {
			b.Fatal(err)
		}
		bodies = append(bodies, body)
	}
	return bodies
}

// serveReview has h answer one review, and fails on anything but 200.
func serveReview(b *testing.B, h http.Handler, body []byte) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body)))
	if rec.Code != http.StatusOK {
		b.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
}

// BenchmarkWarningsAdmission drives the webhook's handlers with
// AdmissionReview bodies of pod creations on a cluster of 5,000 synthetic
// nodes. warnings=off is the publish webhook (/mutate) alone, what every
// pod costs the webhook without warnings; warnings=on is /mutate and
// /warnings, what it costs with them. Each reports the p99 of a review's
// time (p99-ms: for warnings=on, of the /warnings review alone), and
// warnings=on the throughput ratio on/off (ratio) against the
// warnings=off run before it, and the mean time of the /warnings review
// alone (warnings-us).
func BenchmarkWarningsAdmission(b *testing.B) {
	inv := inventory.New()
	for i := range 5000 {
		obj, _ := inventory.Project(synthetic.Node(i))
		inv.NodeHandler().OnAdd(obj, true)
	}
	args := scheme.DefaultArgs()
	publisher, err := New(synthetic.ProfileWindowsAware, args)
	if err != nil {
		b.Fatal(err)
	}
	warner, err := NewWarner(synthetic.ProfileWindowsAware, args, inv, nil)
	if err != nil {
		b.Fatal(err)
	}
	logger := klog.Background()
	mutate, warn := publisher.Handler(logger), warner.WarningsHandler(logger, false)
	bodies := benchReviews(b)
	var offPerOp float64
	for _, tc := range []struct {
		name     string
		handlers []http.Handler
	}{
		{"warnings=off", []http.Handler{mutate}},
		{"warnings=on", []http.Handler{mutate, warn}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			last := len(tc.handlers) - 1
			var times []time.Duration
			i := 0
			start := time.Now()
			for b.Loop() {
				body := bodies[i%len(bodies)]
				for j, h := range tc.handlers {
					if j != last {
						serveReview(b, h, body)
						continue
					}
					t0 := time.Now()
					serveReview(b, h, body)
					times = append(times, time.Since(t0))
				}
				i++
			}
			perOp := float64(time.Since(start).Nanoseconds()) / float64(i)
			var sum time.Duration
			for _, t := range times {
				sum += t
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)*99/100].Nanoseconds())/1e6, "p99-ms")
			if tc.name == "warnings=off" {
				offPerOp = perOp
			} else if offPerOp > 0 {
				b.ReportMetric(offPerOp/perOp, "ratio")
				b.ReportMetric(float64(sum.Microseconds())/float64(len(times)), "warnings-us")
			}
		})
	}
}

// BenchmarkWarningsJudge is the warnings' own work on one pod at 5,000
// nodes, with no review to decode: the decision and one verdict per class.
func BenchmarkWarningsJudge(b *testing.B) {
	inv := inventory.New()
	for i := range 5000 {
		obj, _ := inventory.Project(synthetic.Node(i))
		inv.NodeHandler().OnAdd(obj, true)
	}
	warner, err := NewWarner(synthetic.ProfileWindowsAware, scheme.DefaultArgs(), inv, nil)
	if err != nil {
		b.Fatal(err)
	}
	pod := synthetic.KindOf(1).Pod("p", synthetic.WindowsAware)
	for b.Loop() {
		warner.Warnings("Pod p", pod)
	}
}
