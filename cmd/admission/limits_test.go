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
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/klog/v2"

	"github.com/windows-aware/windows-aware/internal/pki"
	"github.com/windows-aware/windows-aware/pkg/apis/config/scheme"
	"github.com/windows-aware/windows-aware/pkg/publish"
)

// TestServerLimits: a client that trickles its headers or its body, or
// sends headers past the limit, is cut off instead of holding a connection
// of the webhook.
func TestServerLimits(t *testing.T) {
	limits := serverLimits{readHeader: 500 * time.Millisecond, read: time.Second, write: 2 * time.Second, idle: time.Second, maxHeaderBytes: 4 << 10}
	o := &options{limits: limits, metricsAuth: metricsAuthOptions{mode: metricsAuthNone}}
	ca := startServing(t, o)

	addr := fmt.Sprintf("127.0.0.1:%d", o.port)
	dial := func(t *testing.T) *tls.Conn {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: ca.Pool()})
			if err == nil {
				return conn
			}
			if time.Now().After(deadline) {
				t.Fatalf("dial %s: %v", addr, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	// trickle writes prefix, then one byte of more every 100ms, until the
	// server closes the connection or 10 seconds pass; it returns how long
	// the server kept the connection.
	trickle := func(t *testing.T, prefix, more string) time.Duration {
		conn := dial(t)
		defer conn.Close()
		start := time.Now()
		closed := make(chan struct{})
		go func() {
			_, _ = io.Copy(io.Discard, conn) // returns when the server closes
			close(closed)
		}()
		if _, err := conn.Write([]byte(prefix)); err != nil {
			return time.Since(start)
		}
		for i := 0; time.Since(start) < 10*time.Second; i++ {
			select {
			case <-closed:
				return time.Since(start)
			case <-time.After(100 * time.Millisecond):
			}
			if _, err := conn.Write([]byte{more[i%len(more)]}); err != nil {
				return time.Since(start)
			}
		}
		t.Fatalf("the server kept a trickling connection for 10s")
		return 0
	}

	t.Run("headers trickled", func(t *testing.T) {
		if held := trickle(t, "GET /healthz HTTP/1.1\r\nHost: x\r\n", "X-Slow: aaaaaaaa\r\n"); held > 3*time.Second {
			t.Errorf("held %v, want about the header timeout %v", held, limits.readHeader)
		}
	})
	t.Run("body trickled", func(t *testing.T) {
		if held := trickle(t, "POST /mutate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n", "{"); held > 4*time.Second {
			t.Errorf("held %v, want about the read timeout %v", held, limits.read)
		}
	})
	t.Run("idle connection", func(t *testing.T) {
		conn := dial(t)
		defer conn.Close()
		start := time.Now()
		if _, err := conn.Write([]byte("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReader(conn)
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := r.ReadByte(); err == nil {
			t.Fatal("the server sent more than one answer")
		}
		if held := time.Since(start); held > 4*time.Second {
			t.Errorf("an idle connection held %v, want about the idle timeout %v", held, limits.idle)
		}
	})
	t.Run("headers too large", func(t *testing.T) {
		conn := dial(t)
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		big := "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 64<<10) + "\r\n\r\n"
		go func() { _, _ = conn.Write([]byte(big)) }()
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("no answer to headers past the limit: %v", err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
			t.Errorf("headers past the limit: %d, want 431", resp.StatusCode)
		}
	})
}

// startServing serves the webhook on a free loopback port with a
// certificate of a new CA, until the test ends, and returns the CA.
func startServing(t *testing.T, o *options) *pki.CA {
	t.Helper()
	dir := t.TempDir()
	ca, err := pki.NewCA(filepath.Join(dir, "ca"), "test-ca")
	if err != nil {
		t.Fatal(err)
	}
	o.certFile, o.keyFile, err = ca.IssueLoopbackServing("serving", "admission")
	if err != nil {
		t.Fatal(err)
	}
	o.bindAddress, o.port = "127.0.0.1", freePort(t)
	publisher, err := publish.New("windows-aware", scheme.DefaultArgs())
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- serve(ctx, klog.Background(), publisher, o) }()
	t.Cleanup(func() { stop(); <-served })
	return ca
}
