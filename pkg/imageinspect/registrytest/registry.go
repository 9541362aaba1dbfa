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

package registrytest

import (
	"encoding/base64"
	"encoding/pem"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
)

// Fault is a misbehaviour the server shows for matching requests.
type Fault struct {
	// Match selects the requests; nil matches all but token requests.
	Match func(*http.Request) bool
	// Times the fault fires; < 0 for ever.
	Times int
	// Delay is waited before answering (or failing).
	Delay time.Duration
	// Status, when set, is answered instead of the registry's answer.
	Status int
	// Header is added to a Status answer (e.g. Retry-After).
	Header http.Header
	// Drop closes the connection without an answer.
	Drop bool
}

// Server is a loopback registry.
type Server struct {
	*httptest.Server
	handler http.Handler
	caFile  string

	mu     sync.Mutex
	faults []*Fault
	users  map[string]string
	counts map[string]int
	times  map[string][]time.Time
}

// Option configures a Server.
type Option func(*options)

type options struct{ tls bool }

// WithTLS serves HTTPS with a self-signed certificate for 127.0.0.1;
// CAFile holds it.
func WithTLS() Option { return func(o *options) { o.tls = true } }

// New starts a registry on 127.0.0.1; it stops when the test ends.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	s := &Server{handler: registry.New(registry.Logger(log.New(io.Discard, "", 0))), counts: map[string]int{}, times: map[string][]time.Time{}}
	if o.tls {
		s.Server = httptest.NewTLSServer(http.HandlerFunc(s.serve))
		s.caFile = filepath.Join(t.TempDir(), "ca.pem")
		cert := s.Server.Certificate()
		if err := os.WriteFile(s.caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}), 0o600); err != nil {
			t.Fatal(err)
		}
	} else {
		s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	}
	t.Cleanup(s.Close)
	return s
}

// Host is the server's host:port, as image references name it.
func (s *Server) Host() string {
	return strings.TrimPrefix(strings.TrimPrefix(s.URL, "https://"), "http://")
}

// Endpoint is the server's URL, as a mirror endpoint names it.
func (s *Server) Endpoint() string { return s.URL }

// CAFile is the PEM file of the TLS server's certificate ("" without TLS).
func (s *Server) CAFile() string { return s.caFile }

// Ref is a reference to repo (with :tag or @digest) on this server.
func (s *Server) Ref(repo string) string { return s.Host() + "/" + repo }

// RequireBearer turns on token auth: /v2/ answers 401 with a Bearer
// challenge whose realm is this server's /token, which hands tokens to the
// given users (name → password) over Basic auth.
func (s *Server) RequireBearer(users map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.users = users
}

// AddFault adds a fault; faults are tried in the order added.
func (s *Server) AddFault(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &f)
}

// ClearFaults removes every fault.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

// Count is the number of requests of method to kind ("ping", "token",
// "manifests", "blobs", "other") served so far, faults included.
func (s *Server) Count(method, kind string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[method+" "+kind]
}

// Total is the number of requests served so far.
func (s *Server) Total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.counts {
		n += c
	}
	return n
}

// Times are the arrival times of requests of method to kind.
func (s *Server) Times(method, kind string) []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.times[method+" "+kind]...)
}

// ResetCounts zeroes the counters.
func (s *Server) ResetCounts() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts = map[string]int{}
	s.times = map[string][]time.Time{}
}

// Kind sorts a request path for the counters and for Fault matchers.
func Kind(r *http.Request) string {
	p := r.URL.Path
	switch {
	case p == "/token":
		return "token"
	case p == "/v2/" || p == "/v2":
		return "ping"
	case strings.Contains(p, "/manifests/"):
		return "manifests"
	case strings.Contains(p, "/blobs/"):
		return "blobs"
	}
	return "other"
}

// OnKind matches requests of method (any when "") to kind.
func OnKind(method, kind string) func(*http.Request) bool {
	return func(r *http.Request) bool {
		return (method == "" || r.Method == method) && Kind(r) == kind
	}
}

// directHeader marks the requests of Push, which bypass faults, auth and
// counters.
const directHeader = "X-Registrytest-Direct"

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get(directHeader) != "" {
		s.handler.ServeHTTP(w, r)
		return
	}
	kind := Kind(r)
	s.mu.Lock()
	s.counts[r.Method+" "+kind]++
	s.times[r.Method+" "+kind] = append(s.times[r.Method+" "+kind], time.Now())
	var fault *Fault
	for _, f := range s.faults {
		if f.Times == 0 {
			continue
		}
		if (f.Match == nil && kind != "token") || (f.Match != nil && f.Match(r)) {
			if f.Times > 0 {
				f.Times--
			}
			fault = f
			break
		}
	}
	users := s.users
	s.mu.Unlock()

	if fault != nil {
		if fault.Delay > 0 {
			select {
			case <-time.After(fault.Delay):
			case <-r.Context().Done():
				return
			}
		}
		switch {
		case fault.Drop:
			if hj, ok := w.(http.Hijacker); ok {
				if conn, _, err := hj.Hijack(); err == nil {
					conn.Close()
					return
				}
			}
			panic(http.ErrAbortHandler)
		case fault.Status != 0:
			for k, vs := range fault.Header {
				for _, v := range vs {
					w.Header().Add(k, v)
				}
			}
			w.WriteHeader(fault.Status)
			return
		}
	}
	if users != nil {
		if kind == "token" {
			s.token(w, r, users)
			return
		}
		if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer "+tokenPrefix) || !knownToken(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), users) {
			scheme := "http"
			if r.TLS != nil {
				scheme = "https"
			}
			w.Header().Set("WWW-Authenticate", `Bearer realm="`+scheme+"://"+r.Host+`/token",service="registrytest"`)
			http.Error(w, `{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}`, http.StatusUnauthorized)
			return
		}
	}
	s.handler.ServeHTTP(w, r)
}

const tokenPrefix = "registrytest-"

func knownToken(tok string, users map[string]string) bool {
	_, ok := users[strings.TrimPrefix(tok, tokenPrefix)]
	return ok && strings.HasPrefix(tok, tokenPrefix)
}

func (s *Server) token(w http.ResponseWriter, r *http.Request, users map[string]string) {
	user, pass, ok := r.BasicAuth()
	if !ok || users[user] != pass || pass == "" {
		w.Header().Set("WWW-Authenticate", `Basic realm="registrytest"`)
		http.Error(w, `{"errors":[{"code":"UNAUTHORIZED","message":"bad credentials"}]}`, http.StatusUnauthorized)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"token":"` + tokenPrefix + user + `"}`))
}

// DockerConfigJSON is a config.json granting user:password on hosts, as a
// kubernetes.io/dockerconfigjson Secret or a docker config file holds it.
func DockerConfigJSON(user, password string, hosts ...string) []byte {
	auth := base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
	var b strings.Builder
	b.WriteString(`{"auths":{`)
	for i, h := range hosts {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"` + h + `":{"auth":"` + auth + `"}`)
	}
	b.WriteString(`}}`)
	return []byte(b.String())
}
