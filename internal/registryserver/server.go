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
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/windows-aware/windows-aware/internal/localproc"
	"github.com/windows-aware/windows-aware/internal/pki"
)

// Options configures Start. The zero value runs the registry from
// FindBinary with filesystem storage in a temporary directory, a generated
// user and password, and index validation on.
type Options struct {
	// Dir holds the certificates, the password file, the configuration,
	// the storage and the log. Empty: a new temporary directory, removed by
	// Stop.
	Dir string
	// LogDir receives registry.log. Empty: Dir.
	LogDir string
	// Binary is the registry binary. Empty: FindBinary.
	Binary string
	// InMemory keeps the registry's storage in its memory instead of in
	// Dir/storage.
	InMemory bool
	// Username and Password are the only credentials the registry
	// accepts. Empty: "windows-aware" and a random password.
	Username, Password string
	// AllowIncompleteIndexes lets an index name manifests the repository
	// does not hold (the registry's validation.manifests.indexes.platforms
	// "none"), for tests of clients that meet such an index.
	AllowIncompleteIndexes bool
	// AccessLog writes a line per request to the log.
	AccessLog bool
	// PIDFile, when set, receives the registry's pid and path (see
	// localproc.Spec), and Detach lets the registry outlive the program that
	// started it: what make demo needs.
	PIDFile string
	Detach  bool
	// StartTimeout bounds the wait for the registry to answer. Zero: 30s.
	StartTimeout time.Duration
}

// Server is a running registry.
type Server struct {
	// Host is "127.0.0.1:<port>", the registry part of image references.
	Host string
	// Dir holds everything below.
	Dir string
	// CAFile signs the registry's serving certificate (for 127.0.0.1 and
	// localhost): the one certificate a client must trust.
	CAFile string
	// CertFile and KeyFile are the registry's serving certificate and key.
	CertFile, KeyFile string
	// Username and Password are the credentials the registry accepts.
	Username, Password string
	// HtpasswdFile, ConfigFile and LogFile are the registry's password
	// file, configuration and output.
	HtpasswdFile, ConfigFile, LogFile string

	ca           *pki.CA
	proc         *localproc.Process
	removeDir    bool
	binary       string
	args         []string
	pidFile      string
	detach       bool
	startWait    time.Duration
	faultProxies int
}

// Start writes a CA, a serving certificate, a password file and a
// configuration into opts.Dir, starts the registry on a free port of
// 127.0.0.1, and returns once it answers over TLS.
func Start(ctx context.Context, opts Options) (s *Server, err error) {
	binary := opts.Binary
	if binary == "" {
		if binary, err = FindBinary(); err != nil {
			return nil, err
		}
	}
	s = &Server{Dir: opts.Dir, Username: opts.Username, Password: opts.Password,
		binary: binary, pidFile: opts.PIDFile, detach: opts.Detach, startWait: opts.StartTimeout}
	if s.startWait == 0 {
		s.startWait = 30 * time.Second
	}
	if s.Dir == "" {
		if s.Dir, err = os.MkdirTemp("", "windows-aware-registry-"); err != nil {
			return nil, err
		}
		s.removeDir = true
	} else if err = os.MkdirAll(s.Dir, 0o700); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil && s.removeDir {
			_ = os.RemoveAll(s.Dir)
		}
	}()
	if s.Username == "" {
		s.Username = "windows-aware"
	}
	if s.Password == "" {
		s.Password = randomHex(16)
	}

	if s.ca, err = pki.NewCA(filepath.Join(s.Dir, "pki"), "windows-aware-test-registry-ca"); err != nil {
		return nil, err
	}
	s.CAFile = s.ca.CertFile
	if s.CertFile, s.KeyFile, err = s.ca.IssueLoopbackServing("registry", "registry"); err != nil {
		return nil, err
	}
	s.HtpasswdFile = filepath.Join(s.Dir, "htpasswd")
	if err = writeHtpasswd(s.HtpasswdFile, s.Username, s.Password); err != nil {
		return nil, err
	}
	logDir := opts.LogDir
	if logDir == "" {
		logDir = s.Dir
	}
	if err = os.MkdirAll(logDir, 0o755); err != nil {
		return nil, err
	}
	s.LogFile = filepath.Join(logDir, "registry.log")
	s.ConfigFile = filepath.Join(s.Dir, "config.yml")
	params := configParams{
		certFile:           s.CertFile,
		keyFile:            s.KeyFile,
		htpasswdFile:       s.HtpasswdFile,
		httpSecret:         randomHex(16),
		accessLog:          opts.AccessLog,
		validateIndexFully: !opts.AllowIncompleteIndexes,
	}
	if !opts.InMemory {
		params.storageDir = filepath.Join(s.Dir, "storage")
	}

	// Another program may take the free port before the registry binds it:
	// try a few ports.
	for attempt := 1; ; attempt++ {
		port, perr := localproc.FreePort()
		if perr != nil {
			return nil, perr
		}
		s.Host = "127.0.0.1:" + strconv.Itoa(port)
		params.addr = s.Host
		if err = writeConfig(s.ConfigFile, params); err != nil {
			return nil, err
		}
		s.args = []string{"serve", s.ConfigFile}
		err = s.run(ctx)
		if err == nil || attempt == 3 || !strings.Contains(s.Tail(4096), "address already in use") {
			return s, err
		}
	}
}

// run starts the registry process with s.args and waits until it answers.
func (s *Server) run(ctx context.Context) error {
	var err error
	s.proc, err = localproc.Start(localproc.Spec{
		Name:    "registry",
		Path:    s.binary,
		Args:    s.args,
		LogFile: s.LogFile,
		Env:     registryEnv(),
		PIDFile: s.pidFile,
		Detach:  s.detach,
	})
	if err != nil {
		return err
	}
	if err := s.waitReady(ctx); err != nil {
		s.proc.Stop(time.Second)
		return fmt.Errorf("registry on %s: %w; log %s ends with:\n%s", s.Host, err, s.LogFile, s.Tail(2048))
	}
	return nil
}

// waitReady polls GET /v2/ until the registry answers 401: it serves TLS,
// and its authentication is on.
func (s *Server) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.startWait)
	defer cancel()
	client := &http.Client{Transport: s.Transport(), Timeout: 2 * time.Second}
	var last error
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL()+"/v2/", nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusUnauthorized {
				return nil
			}
			last = fmt.Errorf("GET /v2/ without credentials answered %s, want 401", resp.Status)
		} else {
			last = err
		}
		if s.proc.Exited() {
			return fmt.Errorf("the registry exited (last check: %v)", last)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not ready in %s: %v", s.startWait, last)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// URL is "https://<Host>".
func (s *Server) URL() string { return "https://" + s.Host }

// Pid is the registry's process id, which is also its process group id.
func (s *Server) Pid() int { return s.proc.Pid() }

// Exited reports whether the registry has ended.
func (s *Server) Exited() bool { return s.proc.Exited() }

// Tail returns up to n bytes of the end of the registry's log.
func (s *Server) Tail(n int64) string { return localproc.TailFile(s.LogFile, n) }

// CertPool holds only the CA that signed the registry's certificate.
func (s *Server) CertPool() *x509.CertPool { return s.ca.Pool() }

// TLSConfig trusts only the registry's CA.
func (s *Server) TLSConfig() *tls.Config {
	return &tls.Config{RootCAs: s.CertPool(), MinVersion: tls.VersionTLS12}
}

// Transport is an HTTP transport that trusts the registry's CA.
func (s *Server) Transport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = s.TLSConfig()
	return t
}

// Restart stops the registry and starts it again on the same port, with
// the same configuration and storage (filesystem storage keeps what was
// pushed; in-memory storage starts empty).
func (s *Server) Restart(ctx context.Context) error {
	s.proc.Stop(5 * time.Second)
	return s.run(ctx)
}

// Stop ends the registry (SIGTERM to its process group, SIGKILL after 5s)
// and removes Dir when Start created it. It leaves no process behind.
func (s *Server) Stop() error {
	if s.proc != nil {
		s.proc.Stop(5 * time.Second)
	}
	if s.removeDir {
		return os.RemoveAll(s.Dir)
	}
	return nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(errors.New("crypto/rand failed: " + err.Error()))
	}
	return hex.EncodeToString(b)
}
