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
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Fault is what a FaultProxy does to the requests it matches. The zero
// Fault forwards every request untouched.
type Fault struct {
	// Latency delays each matched request before anything else happens.
	Latency time.Duration
	// Status, when not zero, answers matched requests with this status
	// (429, 500, 503...) instead of forwarding them.
	Status int
	// RetryAfter is the Retry-After header sent with Status ("2", or an
	// HTTP date); empty sends none.
	RetryAfter string
	// Drop closes the connection of a matched request without an answer:
	// the client sees an EOF or a reset.
	Drop bool
	// Hold, when not nil, keeps each matched request waiting until it is
	// closed (or the client gives up), before the rest of the fault. The
	// held requests wait side by side; others pass meanwhile.
	Hold <-chan struct{}
	// Times applies the fault to the next Times matched requests only, and
	// then forwards again. Zero: every matched request, until the next Set.
	Times int
	// Match selects the requests the fault applies to. Nil: every request.
	Match func(*http.Request) bool
}

// FaultProxy is a reverse proxy on 127.0.0.1 that injects Faults in front
// of a registry. Credentials and every header pass through, so a client
// sees the registry itself, with faults. SetDown closes its listener, so
// that connections are refused.
type FaultProxy struct {
	// Host is "127.0.0.1:<port>": use it in image references instead of
	// the registry's.
	Host string

	tlsConfig *tls.Config
	server    *http.Server
	requests  atomic.Int64
	forwarded atomic.Int64

	mu        sync.Mutex
	fault     Fault
	remaining int
	listener  net.Listener
	serveDone chan struct{}
}

// NewFaultProxy starts a fault proxy in front of s that serves TLS with a
// certificate from s's CA, so that clients trust it as they trust s. It
// forwards everything until Set says otherwise. Close stops it.
func (s *Server) NewFaultProxy() (*FaultProxy, error) {
	s.faultProxies++
	certFile, keyFile, err := s.ca.IssueLoopbackServing(fmt.Sprintf("fault-proxy-%d", s.faultProxies), "fault-proxy")
	if err != nil {
		return nil, err
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, err
	}
	return NewFaultProxy(s.URL(), s.Transport(), &cert)
}

// NewFaultProxy starts a fault proxy in front of the registry at backend
// ("https://127.0.0.1:5000"), reached through transport (nil: the default
// transport). It serves TLS with cert, or plain HTTP when cert is nil.
// The integration tests also put one in front of the API server, with a
// transport that authenticates as the scheduler.
func NewFaultProxy(backend string, transport http.RoundTripper, cert *tls.Certificate) (*FaultProxy, error) {
	target, err := url.Parse(backend)
	if err != nil {
		return nil, err
	}
	p := &FaultProxy{}
	if cert != nil {
		// HTTP/1.1 only: Drop hijacks the connection, which HTTP/2 does
		// not allow.
		p.tlsConfig = &tls.Config{Certificates: []tls.Certificate{*cert}, MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"}}
	}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			// The registry builds the upload URLs it hands out from the
			// forwarded host, so that pushes through the proxy come back to
			// the proxy.
			r.SetXForwarded()
		},
		Transport: transport,
	}
	p.server = &http.Server{
		Handler:           p.handler(proxy),
		ReadHeaderTimeout: 10 * time.Second,
		// A non-nil empty map turns HTTP/2 off.
		TLSNextProto: map[string]func(*http.Server, *tls.Conn, http.Handler){},
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p.Host = l.Addr().String()
	p.serve(l)
	return p, nil
}

func (p *FaultProxy) serve(l net.Listener) {
	p.listener = l
	p.serveDone = make(chan struct{})
	done := p.serveDone
	go func() {
		defer close(done)
		if p.tlsConfig != nil {
			l = tls.NewListener(l, p.tlsConfig)
		}
		_ = p.server.Serve(l)
	}()
}

func (p *FaultProxy) handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.requests.Add(1)
		f, ok := p.take(r)
		if !ok {
			p.forwarded.Add(1)
			next.ServeHTTP(w, r)
			return
		}
		if f.Hold != nil {
			select {
			case <-r.Context().Done():
				return
			case <-f.Hold:
			}
		}
		if f.Latency > 0 {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(f.Latency):
			}
		}
		switch {
		case f.Drop:
			if hj, ok := w.(http.Hijacker); ok {
				if conn, _, err := hj.Hijack(); err == nil {
					_ = conn.Close()
					return
				}
			}
			// Without hijacking, abort the handler: net/http then closes
			// the connection without an answer.
			panic(http.ErrAbortHandler)
		case f.Status != 0:
			if f.RetryAfter != "" {
				w.Header().Set("Retry-After", f.RetryAfter)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(f.Status)
			_, _ = fmt.Fprintf(w, `{"errors":[{"code":"%s","message":"injected by the fault proxy"}]}`+"\n", errorCode(f.Status))
		default:
			p.forwarded.Add(1)
			next.ServeHTTP(w, r)
		}
	})
}

// take returns the fault that applies to r, counting it against Times.
func (p *FaultProxy) take(r *http.Request) (Fault, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f := p.fault
	if f.Hold == nil && f.Latency == 0 && f.Status == 0 && !f.Drop {
		return Fault{}, false // nothing to inject
	}
	if f.Match != nil && !f.Match(r) {
		return Fault{}, false
	}
	if f.Times > 0 {
		if p.remaining == 0 {
			return Fault{}, false
		}
		p.remaining--
	}
	return f, true
}

// errorCode is the registry error code (distribution spec) closest to an
// injected status.
func errorCode(status int) string {
	switch status {
	case http.StatusTooManyRequests:
		return "TOOMANYREQUESTS"
	case http.StatusUnauthorized:
		return "UNAUTHORIZED"
	case http.StatusForbidden:
		return "DENIED"
	case http.StatusNotFound:
		return "MANIFEST_UNKNOWN"
	}
	return "UNAVAILABLE_" + strconv.Itoa(status)
}

// Set replaces the fault; Set(Fault{}) forwards everything again.
func (p *FaultProxy) Set(f Fault) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fault = f
	p.remaining = f.Times
}

// Requests is how many requests reached the proxy.
func (p *FaultProxy) Requests() int64 { return p.requests.Load() }

// Forwarded is how many requests the proxy passed on to the registry.
func (p *FaultProxy) Forwarded() int64 { return p.forwarded.Load() }

// ResetCounts sets Requests and Forwarded to zero.
func (p *FaultProxy) ResetCounts() {
	p.requests.Store(0)
	p.forwarded.Store(0)
}

// SetDown(true) closes the listener and every open connection, so that
// new connections are refused; SetDown(false) listens on the same port
// again.
func (p *FaultProxy) SetDown(down bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if down == (p.listener == nil) {
		return nil
	}
	if down {
		err := p.shutdownLocked()
		p.listener = nil
		return err
	}
	l, err := net.Listen("tcp", p.Host)
	if err != nil {
		return fmt.Errorf("listening on %s again: %w", p.Host, err)
	}
	p.server = &http.Server{Handler: p.server.Handler, ReadHeaderTimeout: p.server.ReadHeaderTimeout, TLSNextProto: p.server.TLSNextProto}
	p.serve(l)
	return nil
}

// shutdownLocked closes the listener and every connection, idle or not,
// and waits for Serve to return.
func (p *FaultProxy) shutdownLocked() error {
	err := p.server.Close()
	<-p.serveDone
	if errors.Is(err, http.ErrServerClosed) || errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}

// Close stops the proxy.
func (p *FaultProxy) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.listener == nil {
		return nil
	}
	p.listener = nil
	return p.shutdownLocked()
}
