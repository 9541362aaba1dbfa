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
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/testutil"
	"k8s.io/klog/v2"
)

// review is an AdmissionReview of a pod in ns/name with n containers of
// image, as the API server writes one.
func review(n int, image string) []byte {
	var b strings.Builder
	b.WriteString(`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"u-1","kind":{"group":"","version":"v1","kind":"Pod"},` +
		`"namespace":"team-a","name":"p","operation":"CREATE","object":{"apiVersion":"v1","kind":"Pod","spec":{"containers":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"c%d","image":%q}`, i, image)
	}
	b.WriteString(`]}}}}`)
	return []byte(b.String())
}

// serve runs a gate over one path whose handler answers 200 "next" after
// release is closed (nil: at once), counting its calls.
func serve(t *testing.T, limits Limits, release chan struct{}) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	RegisterMetrics(metrics.NewKubeRegistry())
	var calls atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/mutate", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if _, err := io.ReadAll(r.Body); err != nil {
			t.Errorf("next read the body: %v", err)
		}
		if release != nil {
			<-release
		}
		fmt.Fprint(w, "next")
	})
	srv := httptest.NewServer(New(limits).Wrap(klog.Background(), mux))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// post sends body to the server's path and returns the status and body.
func post(t *testing.T, url string, body []byte) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

// admittedUnchanged checks that out is an allowed review answer of uid
// u-1 with no patch and a warning holding want.
func admittedUnchanged(t *testing.T, out, want string) {
	t.Helper()
	var got admissionv1.AdmissionReview
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.Response == nil {
		t.Fatalf("not a review answer: %q (%v)", out, err)
	}
	r := got.Response
	if r.UID != "u-1" || !r.Allowed || r.Patch != nil || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], want) ||
		!strings.Contains(r.Warnings[0], "Pod team-a/p unchanged") {
		t.Errorf("answer %+v, want allowed, uid u-1, no patch, a warning naming Pod team-a/p and %q", r, want)
	}
	if got.APIVersion != "admission.k8s.io/v1" || got.Kind != "AdmissionReview" {
		t.Errorf("answer of %s %s", got.APIVersion, got.Kind)
	}
}

func TestGateCaps(t *testing.T) {
	tests := []struct {
		name       string
		body       []byte
		limits     Limits
		wantNext   bool
		wantStatus int
		warning    string
		reason     string
	}{
		{name: "within the caps", body: review(3, "nginx:1.27"), wantNext: true, wantStatus: 200},
		{name: "more containers than the cap", body: review(1001, "a"), wantStatus: 200, warning: "more than 1000 containers", reason: ReasonContainers},
		{name: "image bytes past the cap", body: review(2, strings.Repeat("x", 600<<10)), wantStatus: 200, warning: "more than 1048576 bytes", reason: ReasonImageBytes},
		{name: "larger than the webhook reads", body: review(10, strings.Repeat("x", 1<<20)), limits: Limits{MaxBodyBytes: 1 << 20, MaxImageBytes: 64 << 20},
			wantStatus: http.StatusRequestEntityTooLarge, reason: ReasonTooLarge},
		{name: "not a review, within the caps", body: []byte(`not json`), wantNext: true, wantStatus: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, calls := serve(t, tt.limits, nil)
			before := limited(t, tt.reason)
			status, out := post(t, srv.URL+"/mutate", tt.body)
			if status != tt.wantStatus {
				t.Fatalf("status %d (%.200s), want %d", status, out, tt.wantStatus)
			}
			if next := calls.Load() == 1; next != tt.wantNext {
				t.Fatalf("the handler called: %v, want %v", next, tt.wantNext)
			}
			if tt.warning != "" {
				admittedUnchanged(t, out, tt.warning)
			}
			if tt.reason != "" {
				if got := limited(t, tt.reason) - before; got != 1 {
					t.Errorf("%s counted %v times, want 1", tt.reason, got)
				}
			}
		})
	}
}

// TestGateRoom: a large review that finds no room until shortly before
// the API server's timeout is admitted unchanged, while ordinary reviews
// pass beside the large one being read; once it is answered, the next
// large review passes.
func TestGateRoom(t *testing.T) {
	release := make(chan struct{})
	srv, calls := serve(t, Limits{LargeReviewBytes: 64 << 10}, release)
	big := review(1000, strings.Repeat("i", 60)) // about 80 KB: large
	done := make(chan int)
	go func() {
		status, _ := post(t, srv.URL+"/mutate", big) // holds the large reviews' room until released
		done <- status
	}()
	deadline := time.Now().Add(10 * time.Second)
	for calls.Load() < 1 {
		if time.Now().After(deadline) {
			t.Fatal("the first large review never reached the handler")
		}
		time.Sleep(10 * time.Millisecond)
	}

	before := limited(t, ReasonBusy)
	status, out := post(t, srv.URL+"/mutate?timeout=3s", big)
	if status != 200 {
		t.Fatalf("status %d: %s", status, out)
	}
	admittedUnchanged(t, out, "busy")
	if got := limited(t, ReasonBusy) - before; got != 1 {
		t.Errorf("busy counted %v times, want 1", got)
	}

	// Ordinary reviews pass beside it (they too would reach the handler's
	// release only then: answered here by their own goroutine).
	small := make(chan int, 3)
	for range 3 {
		go func() {
			status, _ := post(t, srv.URL+"/mutate?timeout=3s", review(1, "a"))
			small <- status
		}()
	}
	for calls.Load() < 4 {
		if time.Now().After(deadline) {
			t.Fatalf("ordinary reviews did not reach the handler beside a large one: %d calls", calls.Load())
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(release)
	if status := <-done; status != 200 {
		t.Errorf("the first review: status %d", status)
	}
	for range 3 {
		if status := <-small; status != 200 {
			t.Errorf("an ordinary review: status %d", status)
		}
	}
	if status, out := post(t, srv.URL+"/mutate", big); status != 200 || out != "next" {
		t.Errorf("a large review after the release: %d %.100q", status, out)
	}
}

func limited(t *testing.T, reason string) float64 {
	t.Helper()
	if reason == "" {
		return 0
	}
	v, err := testutil.GetCounterMetricValue(LimitedReviews.WithLabelValues("/mutate", reason))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestGateTrickle: a client that declares a large review and trickles it
// holds the large reviews' room alone: an ordinary review of another
// client passes at once beside it.
func TestGateTrickle(t *testing.T) {
	srv, _ := serve(t, Limits{}, nil)
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /mutate HTTP/1.1\r\nHost: webhook\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", 8<<20-1)
	if _, err := conn.Write([]byte(`{"kind":"AdmissionReview","request":{"uid":"u-1",`)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the gate is reading the trickle

	// Held behind the trickle, it would be answered busy after two
	// seconds, not passed to the handler.
	status, out := post(t, srv.URL+"/mutate?timeout=3s", review(1, "nginx:1.27"))
	if status != 200 || out != "next" {
		t.Fatalf("a review beside the trickle: %d %q, want it passed to the handler", status, out)
	}
}
