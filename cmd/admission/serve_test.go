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
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/pki"
	"github.com/windows-aware/windows-aware/pkg/apis/config/scheme"
	"github.com/windows-aware/windows-aware/pkg/publish"
)

// freePort returns a port free on 127.0.0.1 a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestServe: the server answers reviews, health and metrics over TLS,
// picks up a rewritten certificate without a restart, and on shutdown
// fails /readyz first and then stops.
func TestServe(t *testing.T) {
	dir := t.TempDir()
	ca, err := pki.NewCA(filepath.Join(dir, "ca"), "test-ca")
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile, err := ca.IssueLoopbackServing("serving", "admission")
	if err != nil {
		t.Fatal(err)
	}
	o := &options{bindAddress: "127.0.0.1", port: freePort(t), certFile: certFile, keyFile: keyFile, shutdownDelay: time.Second,
		metricsAuth: metricsAuthOptions{mode: metricsAuthNone}}
	publisher, err := publish.New("windows-aware", scheme.DefaultArgs())
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- serve(ctx, klog.Background(), publisher, o) }()

	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.Pool()}}}
	base := fmt.Sprintf("https://127.0.0.1:%d", o.port)
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := client.Get(base + path)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	deadline := time.Now().Add(10 * time.Second)
	for code, _ := get("/healthz"); code != http.StatusOK; code, _ = get("/healthz") {
		if time.Now().After(deadline) {
			t.Fatalf("no /healthz after 10s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if code, _ := get("/readyz"); code != http.StatusOK {
		t.Errorf("/readyz: %d", code)
	}

	raw, _ := json.Marshal(fixture.Pod("iis", "windows-aware", "mcr.microsoft.com/windows/servercore:ltsc2019"))
	review, _ := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{UID: "u", Operation: admissionv1.Create,
			Resource: metav1.GroupVersionResource{Version: "v1", Resource: "pods"}, Object: runtime.RawExtension{Raw: raw}},
	})
	resp, err := client.Post(base+"/mutate", "application/json", bytes.NewReader(review))
	if err != nil {
		t.Fatal(err)
	}
	var out admissionv1.AdmissionReview
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Response == nil || !out.Response.Allowed || len(out.Response.Patch) == 0 {
		t.Errorf("review answer %+v (%v): want allowed with a patch", out.Response, err)
	}
	resp.Body.Close()
	if _, body := get("/metrics"); !strings.Contains(body, `windows_aware_admission_pods_total{outcome="stamped"} 1`) {
		t.Errorf("/metrics does not count the stamped pod:\n%s", body)
	}

	// A new certificate written over the files is served without a restart.
	first := servedSerial(t, o.port, ca)
	newCert, newKey, err := ca.IssueLoopbackServing("rotated", "admission")
	if err != nil {
		t.Fatal(err)
	}
	for src, dst := range map[string]string{newCert: certFile, newKey: keyFile} {
		data, _ := os.ReadFile(src)
		if err := os.WriteFile(dst, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	deadline = time.Now().Add(30 * time.Second)
	for servedSerial(t, o.port, ca) == first {
		if time.Now().After(deadline) {
			t.Fatalf("the rewritten certificate was not served after 30s")
		}
		time.Sleep(200 * time.Millisecond)
	}

	stop()
	time.Sleep(300 * time.Millisecond)
	if code, _ := get("/readyz"); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz while shutting down: %d, want 503", code)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("serve: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not return after shutdown")
	}
}

func servedSerial(t *testing.T, port int, ca *pki.CA) string {
	t.Helper()
	conn, err := tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port), &tls.Config{RootCAs: ca.Pool()})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].SerialNumber.String()
}

func TestVersionFlag(t *testing.T) {
	cmd := newCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"--version"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "windows-aware admission ") {
		t.Errorf("--version printed %q", out.String())
	}
}

func TestRunNeedsCertificates(t *testing.T) {
	cmd := newCommand()
	cmd.SetArgs([]string{"--port", "0"})
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "--tls-cert-file") {
		t.Errorf("running without certificates: %v, want an error naming --tls-cert-file", err)
	}
}
