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

package main

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
)

// workloadReview is an AdmissionReview of a DaemonSet CREATE whose pod
// template holds n containers written by container(i), as the API server
// sends it to /templates (and, for the attack, to any path).
func workloadReview(n int, container func(i int) string) []byte {
	var b bytes.Buffer
	b.WriteString(`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"u-1",` +
		`"kind":{"group":"apps","version":"v1","kind":"DaemonSet"},"resource":{"group":"apps","version":"v1","resource":"daemonsets"},` +
		`"namespace":"team-a","name":"agent","operation":"CREATE","userInfo":{"username":"tenant"},` +
		`"object":{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"agent","namespace":"team-a"},` +
		`"spec":{"selector":{"matchLabels":{"app":"agent"}},"template":{"metadata":{"labels":{"app":"agent"}},"spec":{"containers":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(container(i))
	}
	b.WriteString(`]}}}}}}`)
	return b.Bytes()
}

// TestReviewCost: what the largest reviews cost a replica, two clients at
// a time on each review path, with no credentials: the heap stays far
// under the chart's 256 MiB limit. The attack (7 MiB of minimal
// containers) once took a replica past 3 GiB; the largest review the gate
// passes (its 1,000 containers padded with environment to 7.5 MiB) is
// decoded one at a time.
func TestReviewCost(t *testing.T) {
	o := &options{limits: serverLimits{readHeader: 5 * time.Second, read: time.Minute, write: time.Minute, idle: time.Minute, maxHeaderBytes: 64 << 10},
		metricsAuth: metricsAuthOptions{mode: metricsAuthNone}}
	ca := startServing(t, o)
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.Pool()}}}
	base := fmt.Sprintf("https://127.0.0.1:%d", o.port)

	attack := workloadReview(240_000, func(i int) string { return fmt.Sprintf(`{"name":"c%d","image":"a"}`, i) })
	pad := strings.Repeat("v", 7400)
	largest := workloadReview(1000, func(i int) string {
		return fmt.Sprintf(`{"name":"c%d","image":"mcr.microsoft.com/windows/nanoserver:ltsc2022","env":[{"name":"PAD","value":%q}]}`, i, pad)
	})
	t.Logf("the attack's review: %.1f MiB; the largest passed: %.1f MiB", float64(len(attack))/(1<<20), float64(len(largest))/(1<<20))

	tests := []struct {
		name, path string
		body       []byte
		// passed: the gate hands the review to the path's handler.
		passed bool
	}{
		{name: "attack", path: "/templates", body: attack},
		{name: "attack", path: "/mutate", body: attack},
		{name: "attack", path: "/opt-in", body: attack},
		{name: "largest", path: "/templates", body: largest, passed: true},
		{name: "largest", path: "/mutate", body: largest, passed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name+tt.path, func(t *testing.T) {
			runtime.GC()
			baseline := heapBytes()
			var peak atomic.Uint64
			stop := make(chan struct{})
			sampled := make(chan struct{})
			go func() {
				defer close(sampled)
				for {
					if h := heapBytes(); h > peak.Load() {
						peak.Store(h)
					}
					select {
					case <-stop:
						return
					case <-time.After(2 * time.Millisecond):
					}
				}
			}()
			var wg sync.WaitGroup
			for range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					resp, err := client.Post(base+tt.path, "application/json", bytes.NewReader(tt.body))
					if err != nil {
						t.Error(err)
						return
					}
					defer resp.Body.Close()
					out, _ := io.ReadAll(resp.Body)
					var review admissionv1.AdmissionReview
					if resp.StatusCode != 200 || json.Unmarshal(out, &review) != nil || review.Response == nil || !review.Response.Allowed {
						t.Errorf("status %d: %.300s", resp.StatusCode, out)
						return
					}
					limited := len(review.Response.Warnings) > 0 && strings.Contains(review.Response.Warnings[0], "containers, the most this webhook reads")
					if limited == tt.passed {
						t.Errorf("answered by the gate: %v, want %v (%v)", limited, !tt.passed, review.Response.Warnings)
					}
				}()
			}
			wg.Wait()
			close(stop)
			<-sampled
			growth := int64(peak.Load()) - int64(baseline)
			t.Logf("heap: %d MiB at the start, %+d MiB at the peak", baseline>>20, growth>>20)
			if growth > 128<<20 {
				t.Errorf("two reviews at once took the heap %d MiB past its start; the chart's limit for the whole process is 256 MiB", growth>>20)
			}
		})
	}
}

// heapBytes is the heap's live and not yet swept objects, read without
// stopping the world.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
