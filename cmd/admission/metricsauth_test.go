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
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
)

// TestMetricsAuth: /metrics answers only a bearer token the API server
// authenticates and authorizes for get on /metrics; health stays open.
func TestMetricsAuth(t *testing.T) {
	const scraper = "system:serviceaccount:monitoring:prometheus"
	users := map[string]string{"scraper-token": scraper, "tenant-token": "system:serviceaccount:team-a:default"}
	// The API server's two reviews, as a loopback server answers them.
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var answer any
		switch r.URL.Path {
		case "/apis/authentication.k8s.io/v1/tokenreviews":
			var review authenticationv1.TokenReview
			if err := json.NewDecoder(r.Body).Decode(&review); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			if user, ok := users[review.Spec.Token]; ok {
				review.Status = authenticationv1.TokenReviewStatus{Authenticated: true, User: authenticationv1.UserInfo{Username: user}}
			}
			answer = &review
		case "/apis/authorization.k8s.io/v1/subjectaccessreviews":
			var review authorizationv1.SubjectAccessReview
			if err := json.NewDecoder(r.Body).Decode(&review); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			na := review.Spec.NonResourceAttributes
			review.Status.Allowed = review.Spec.User == scraper && na != nil && na.Path == "/metrics" && na.Verb == "get"
			answer = &review
		default:
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(answer)
	}))
	t.Cleanup(api.Close)
	client, err := kubernetes.NewForConfig(&rest.Config{Host: api.URL})
	if err != nil {
		t.Fatal(err)
	}
	o := &options{metricsAuth: metricsAuthOptions{mode: metricsAuthDelegated, client: client}}
	ca := startServing(t, o)

	httpClient := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.Pool()}}}
	get := func(path, token string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("https://127.0.0.1:%d%s", o.port, path), nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := httpClient.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	deadline := time.Now().Add(10 * time.Second)
	for code, _ := get("/healthz", ""); code != http.StatusOK; code, _ = get("/healthz", "") {
		if time.Now().After(deadline) {
			t.Fatalf("no /healthz without a token after 10s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	tests := []struct {
		name, token string
		want        int
	}{
		{name: "no token", want: http.StatusUnauthorized},
		{name: "unknown token", token: "forged", want: http.StatusUnauthorized},
		{name: "authenticated, not authorized", token: "tenant-token", want: http.StatusForbidden},
		{name: "authorized scraper", token: "scraper-token", want: http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := get("/metrics", tt.token)
			if code != tt.want {
				t.Fatalf("/metrics: %d, want %d", code, tt.want)
			}
			if isMetrics := strings.Contains(body, "windows_aware_admission_pods_total"); isMetrics != (tt.want == http.StatusOK) {
				t.Errorf("/metrics answered %d with metrics %v", code, isMetrics)
			}
		})
	}
	if code, _ := get("/readyz", ""); code != http.StatusOK {
		t.Errorf("/readyz without a token: %d, want 200", code)
	}
}

// TestMetricsAuthNeedsTheAPIServer: delegated, the default, fails at start
// without a way to reach the API server rather than serving open metrics.
func TestMetricsAuthNeedsTheAPIServer(t *testing.T) {
	cmd := newCommand()
	if f := cmd.Flags().Lookup("metrics-auth"); f == nil || f.DefValue != metricsAuthDelegated {
		t.Fatalf("--metrics-auth default %v, want %s", f, metricsAuthDelegated)
	}
	m := &metricsAuthOptions{}
	if _, err := m.guard(klog.Background(), http.NotFoundHandler(), func() (kubernetes.Interface, error) { return nil, fmt.Errorf("no cluster") }); err == nil ||
		!strings.Contains(err.Error(), "--metrics-auth=none") {
		t.Errorf("guard without the API server: %v, want an error naming --metrics-auth=none", err)
	}
}
