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

package registryserver

import (
	"crypto/tls"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/windows-aware/windows-aware/internal/pki"
	"github.com/windows-aware/windows-aware/internal/testimage"
	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
)

// proxied starts an in-process registry (registrytest's: the proxy is
// under test here, not the registry) with one image (repository "app",
// tag "1") and a TLS fault proxy in front of it, and returns the proxy and
// a client that trusts it.
func proxied(t *testing.T) (*FaultProxy, *http.Client) {
	t.Helper()
	backend := registrytest.New(t)
	backend.Push(t, "app:1", registrytest.WindowsImage(t, testimage.OSVersion2022))
	ca, err := pki.NewCA(t.TempDir(), "test-ca")
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile, err := ca.IssueLoopbackServing("proxy", "proxy")
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	proxy, err := NewFaultProxy(backend.URL, nil, &cert)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = proxy.Close() })
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig = &tls.Config{RootCAs: ca.Pool()}
	// A new connection per request, so that a dropped one does not stay
	// in the pool.
	transport.DisableKeepAlives = true
	return proxy, &http.Client{Transport: transport}
}

func TestFaultProxy(t *testing.T) {
	proxy, client := proxied(t)
	manifestURL := "https://" + proxy.Host + "/v2/app/manifests/1"
	isBlob := func(r *http.Request) bool { return strings.Contains(r.URL.Path, "/blobs/") }

	cases := []struct {
		name            string
		fault           Fault
		requests        int
		wantStatuses    []int // per request; 0: a transport error
		wantRetryAfter  string
		wantMinDuration time.Duration
		wantForwarded   int64
	}{
		{name: "no fault forwards", requests: 2, wantStatuses: []int{200, 200}, wantForwarded: 2},
		{name: "latency delays and forwards", fault: Fault{Latency: 200 * time.Millisecond}, requests: 1,
			wantStatuses: []int{200}, wantMinDuration: 200 * time.Millisecond, wantForwarded: 1},
		{name: "429 with Retry-After", fault: Fault{Status: http.StatusTooManyRequests, RetryAfter: "7"}, requests: 2,
			wantStatuses: []int{429, 429}, wantRetryAfter: "7"},
		{name: "503 once, then forwarded", fault: Fault{Status: http.StatusServiceUnavailable, Times: 1}, requests: 3,
			wantStatuses: []int{503, 200, 200}, wantForwarded: 2},
		{name: "dropped twice, then forwarded", fault: Fault{Drop: true, Times: 2}, requests: 3,
			wantStatuses: []int{0, 0, 200}, wantForwarded: 1},
		{name: "a fault on blobs spares manifests", fault: Fault{Status: http.StatusInternalServerError, Match: isBlob}, requests: 1,
			wantStatuses: []int{200}, wantForwarded: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			proxy.Set(tc.fault)
			defer proxy.Set(Fault{})
			proxy.ResetCounts()
			for i := range tc.requests {
				start := time.Now()
				resp, err := client.Get(manifestURL)
				took := time.Since(start)
				want := tc.wantStatuses[i]
				if want == 0 {
					if err == nil {
						resp.Body.Close()
						t.Errorf("request %d: %s, want a transport error", i, resp.Status)
					}
					continue
				}
				if err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != want {
					t.Errorf("request %d: %s, want %d", i, resp.Status, want)
				}
				if want != 200 {
					if got := resp.Header.Get("Retry-After"); got != tc.wantRetryAfter {
						t.Errorf("request %d: Retry-After %q, want %q", i, got, tc.wantRetryAfter)
					}
					if !strings.Contains(string(body), `"errors"`) {
						t.Errorf("request %d: body %q is not a registry error", i, body)
					}
				}
				if took < tc.wantMinDuration {
					t.Errorf("request %d took %s, want at least %s", i, took, tc.wantMinDuration)
				}
			}
			if got := proxy.Requests(); got != int64(tc.requests) {
				t.Errorf("Requests() = %d, want %d", got, tc.requests)
			}
			if got := proxy.Forwarded(); got != tc.wantForwarded {
				t.Errorf("Forwarded() = %d, want %d", got, tc.wantForwarded)
			}
		})
	}
}

func TestFaultProxyDown(t *testing.T) {
	proxy, client := proxied(t)
	manifestURL := "https://" + proxy.Host + "/v2/app/manifests/1"
	for round := range 2 {
		if err := proxy.SetDown(true); err != nil {
			t.Fatal(err)
		}
		if err := proxy.SetDown(true); err != nil {
			t.Fatalf("SetDown(true) twice: %v", err)
		}
		if _, err := client.Get(manifestURL); !errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("round %d, down: %v, want connection refused", round, err)
		}
		if err := proxy.SetDown(false); err != nil {
			t.Fatal(err)
		}
		resp, err := client.Get(manifestURL)
		if err != nil {
			t.Fatalf("round %d, up: %v", round, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("round %d, up: %s, want 200", round, resp.Status)
		}
	}
}

// TestFaultProxyLatencyIsConcurrent checks that latency delays requests
// side by side, not one after another: a client with a deadline sees each
// request's latency, not the sum.
func TestFaultProxyLatencyIsConcurrent(t *testing.T) {
	proxy, client := proxied(t)
	proxy.Set(Fault{Latency: 300 * time.Millisecond})
	start := time.Now()
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			resp, err := client.Get("https://" + proxy.Host + "/v2/app/manifests/1")
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
		})
	}
	wg.Wait()
	if took := time.Since(start); took > 1100*time.Millisecond {
		t.Errorf("4 concurrent requests with 300ms latency took %s", took)
	}
}

// TestFaultProxyHold: matched requests wait, side by side, until Hold is
// closed; the others pass meanwhile.
func TestFaultProxyHold(t *testing.T) {
	proxy, client := proxied(t)
	release := make(chan struct{})
	isManifest := func(r *http.Request) bool { return strings.Contains(r.URL.Path, "/manifests/") }
	proxy.Set(Fault{Hold: release, Match: isManifest})
	done := make(chan int, 2)
	for range 2 {
		go func() {
			resp, err := client.Get("https://" + proxy.Host + "/v2/app/manifests/1")
			if err != nil {
				t.Error(err)
				done <- 0
				return
			}
			resp.Body.Close()
			done <- resp.StatusCode
		}()
	}
	// A request the fault does not match passes while the others wait.
	resp, err := client.Get("https://" + proxy.Host + "/v2/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/v2/ = %d while manifests were held, want 200", resp.StatusCode)
	}
	// Both held requests reached the proxy and none was answered.
	for deadline := time.Now().Add(10 * time.Second); proxy.Requests() < 3; {
		if time.Now().After(deadline) {
			t.Fatalf("%d requests reached the proxy, want 3", proxy.Requests())
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case code := <-done:
		t.Fatalf("a held request was answered (%d) before the release", code)
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	for range 2 {
		if code := <-done; code != http.StatusOK {
			t.Errorf("held request answered %d after the release, want 200", code)
		}
	}
	if got := proxy.Forwarded(); got != 3 {
		t.Errorf("%d requests forwarded, want 3", got)
	}
}

// TestFaultProxyForGoContainerregistry reads an image through the proxy
// with go-containerregistry, as the resolver will.
func TestFaultProxyForGoContainerregistry(t *testing.T) {
	proxy, client := proxied(t)
	ref, err := name.ParseReference(proxy.Host + "/app:1")
	if err != nil {
		t.Fatal(err)
	}
	img, err := remote.Image(ref, remote.WithTransport(client.Transport))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.OS != "windows" || cfg.OSVersion != testimage.OSVersion2022 {
		t.Errorf("config says %s %s, want windows %s", cfg.OS, cfg.OSVersion, testimage.OSVersion2022)
	}
}
