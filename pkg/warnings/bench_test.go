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
	"github.com/windows-aware/windows-aware/pkg/publish"
	"github.com/windows-aware/windows-aware/pkg/workloadkind"
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
				Resource: workloadkind.Pod.RequestResource(), Kind: metav1.GroupVersionKind{Version: "v1", Kind: "Pod"}, Object: runtime.RawExtension{Raw: raw}},
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
// nodes, as the chart's webhook configurations route them. The pods are
// the profile's, so with warnings on the API server sends each to
// /mutate/warnings alone (the warnings' validating webhook leaves the
// profile's pods to it); with them off, to /mutate. warnings=off is
// /mutate alone. warnings=on serves every body both ways, in turns which
// goes first, so that the two are measured over the same time on the
// same machine, and reports the throughput ratio on/off (ratio), the p99
// of an on review (p99-ms), and the mean time of the /warnings review
// that a pod of another scheduler costs the webhook instead
// (warnings-us, not in the ratio).
func BenchmarkWarningsAdmission(b *testing.B) {
	inv := inventory.New()
	for i := range 5000 {
		obj, _ := inventory.Project(synthetic.Node(i))
		inv.NodeHandler().OnAdd(obj, true)
	}
	args := scheme.DefaultArgs()
	publisher, err := publish.New(synthetic.ProfileWindowsAware, args)
	if err != nil {
		b.Fatal(err)
	}
	warner, err := New(synthetic.ProfileWindowsAware, args, inv, nil)
	if err != nil {
		b.Fatal(err)
	}
	logger := klog.Background()
	mutate, mutateWarn, warn := publisher.Handler(logger), publisher.HandlerWithWarnings(logger, warner), warner.Handler(logger, false)
	bodies := benchReviews(b)
	timed := func(h http.Handler, body []byte) time.Duration {
		t0 := time.Now()
		serveReview(b, h, body)
		return time.Since(t0)
	}
	p99 := func(times []time.Duration) float64 {
		slices.Sort(times)
		return float64(times[len(times)*99/100].Nanoseconds()) / 1e6
	}
	b.Run("warnings=off", func(b *testing.B) {
		var times []time.Duration
		i := 0
		for b.Loop() {
			times = append(times, timed(mutate, bodies[i%len(bodies)]))
			i++
		}
		b.ReportMetric(p99(times), "p99-ms")
	})
	b.Run("warnings=on", func(b *testing.B) {
		var on []time.Duration
		var offSum, onSum, warnSum time.Duration
		i := 0
		for b.Loop() {
			body := bodies[i%len(bodies)]
			if i%2 == 0 {
				offSum += timed(mutate, body)
				on = append(on, timed(mutateWarn, body))
			} else {
				on = append(on, timed(mutateWarn, body))
				offSum += timed(mutate, body)
			}
			onSum += on[len(on)-1]
			warnSum += timed(warn, body)
			i++
		}
		b.ReportMetric(p99(on), "p99-ms")
		b.ReportMetric(float64(offSum)/float64(onSum), "ratio")
		b.ReportMetric(float64(warnSum.Microseconds())/float64(i), "warnings-us")
	})
}

// BenchmarkWarningsJudge is the warnings' own work on one pod at 5,000
// nodes, with no review to decode: the decision and one verdict per class.
func BenchmarkWarningsJudge(b *testing.B) {
	inv := inventory.New()
	for i := range 5000 {
		obj, _ := inventory.Project(synthetic.Node(i))
		inv.NodeHandler().OnAdd(obj, true)
	}
	warner, err := New(synthetic.ProfileWindowsAware, scheme.DefaultArgs(), inv, nil)
	if err != nil {
		b.Fatal(err)
	}
	pod := synthetic.KindOf(1).Pod("p", synthetic.WindowsAware)
	for b.Loop() {
		warner.Warnings("Pod p", pod)
	}
}
