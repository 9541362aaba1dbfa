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

package imageinspect

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/klog/v2/ktesting"

	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

const (
	v17763 = "10.0.17763.5329"
	v20348 = "10.0.20348.2227"
)

var (
	linuxAMD64 = windows.Platform{OS: "linux", Arch: "amd64"}
	linuxARM64 = windows.Platform{OS: "linux", Arch: "arm64"}
	win17763   = windows.Platform{OS: "windows", Arch: "amd64", Version: mustOSVersion(v17763)}
	win20348   = windows.Platform{OS: "windows", Arch: "amd64", Version: mustOSVersion(v20348)}
	winAny     = windows.Platform{OS: "windows", Arch: "amd64"}
)

func mustOSVersion(s string) windows.Version {
	v, ok := windows.ParseOSVersion(s)
	if !ok {
		panic(s)
	}
	return v
}

// mixedList is the shape of the Docker official images: Linux entries,
// one Windows entry per build, and a BuildKit attestation.
func mixedList(flavour registrytest.Flavour) []registrytest.Entry {
	return []registrytest.Entry{
		{OS: "linux", Arch: "amd64"},
		{OS: "linux", Arch: "arm64"},
		{OS: "windows", Arch: "amd64", OSVersion: v17763},
		{OS: "windows", Arch: "amd64", OSVersion: v20348},
		{Attestation: true, OS: "linux", Arch: "amd64"},
	}
}

// registryFor allowlists a loopback test server.
func registryFor(s *registrytest.Server) Registry {
	return Registry{Host: s.Host(), AllowPrivate: true, Insecure: s.CAFile() == "", CAFile: s.CAFile()}
}

// harness runs a resolver and records what OnResolved reports.
type harness struct {
	*Resolver
	mu      sync.Mutex
	reports map[string][]string // waiter -> the refs reported to it
	notify  chan string
}

func newHarness(t *testing.T, cfg Config) *harness {
	t.Helper()
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = 5 * time.Second
	}
	if cfg.RetryBaseDelay == 0 {
		cfg.RetryBaseDelay = 10 * time.Millisecond
	}
	r, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	h := &harness{Resolver: r, reports: map[string][]string{}, notify: make(chan string, 1024)}
	r.OnResolved(func(ref string, waiters []string) {
		// The facts must be stored before anyone is told.
		h.mu.Lock()
		for _, w := range waiters {
			h.reports[w] = append(h.reports[w], ref)
		}
		h.mu.Unlock()
		for _, w := range waiters {
			select {
			case h.notify <- w:
			default:
			}
		}
	})
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	r.Start(ctx)
	return h
}

// await wants ref and waits until it is no longer pending.
func (h *harness) await(t *testing.T, ref string, pull PullSecrets) Result {
	t.Helper()
	h.Want(ref, "", pull)
	return h.awaitState(t, ref, pull, func(res Result) bool { return res.State != StatePending })
}

// awaitState waits until what a pod with pull sees of ref is done.
func (h *harness) awaitState(t *testing.T, ref string, pull PullSecrets, done func(Result) bool) Result {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		res, ok := h.Lookup(ref, pull)
		if ok && done(res) {
			return res
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still %+v (known %v) after 15s", ref, res, ok)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// awaitTold waits until waiter has been told n times.
func (h *harness) awaitTold(t *testing.T, waiter string, n int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for len(h.reportsTo(waiter)) < n {
		if time.Now().After(deadline) {
			t.Fatalf("waiter %s told %d times, want %d", waiter, len(h.reportsTo(waiter)), n)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func (h *harness) reportsTo(waiter string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.reports[waiter]...)
}

func TestResolvePlatforms(t *testing.T) {
	tests := []struct {
		name string
		// push stores content on s and returns the reference to resolve.
		push func(t *testing.T, s *registrytest.Server) string
		want []windows.Platform
	}{
		{
			name: "Docker list: linux, windows 17763 and 20348, attestation",
			push: func(t *testing.T, s *registrytest.Server) string {
				s.Push(t, "golang:latest", registrytest.Index(t, registrytest.Docker, mixedList(registrytest.Docker)...))
				return s.Ref("golang:latest")
			},
			want: []windows.Platform{linuxAMD64, linuxARM64, win17763, win20348},
		},
		{
			name: "OCI index: linux, windows 17763 and 20348, attestation",
			push: func(t *testing.T, s *registrytest.Server) string {
				s.Push(t, "mongo:latest", registrytest.Index(t, registrytest.OCI, mixedList(registrytest.OCI)...))
				return s.Ref("mongo:latest")
			},
			want: []windows.Platform{linuxAMD64, linuxARM64, win17763, win20348},
		},
		{
			name: "single image whose config has os.version",
			push: func(t *testing.T, s *registrytest.Server) string {
				s.Push(t, "contoso/orders-api:1.4.2", registrytest.WindowsImage(t, v17763))
				return s.Ref("contoso/orders-api:1.4.2")
			},
			want: []windows.Platform{win17763},
		},
		{
			name: "single OCI linux image",
			push: func(t *testing.T, s *registrytest.Server) string {
				s.Push(t, "tools:v1", registrytest.Image(t, registrytest.OCI, "linux", "arm64", ""))
				return s.Ref("tools:v1")
			},
			want: []windows.Platform{linuxARM64},
		},
		{
			name: "entry without os.version whose config has it",
			push: func(t *testing.T, s *registrytest.Server) string {
				s.Push(t, "buildx:1", registrytest.Index(t, registrytest.OCI,
					registrytest.Entry{OS: "linux", Arch: "amd64"},
					registrytest.Entry{OS: "windows", Arch: "amd64", ConfigOSVersion: v20348}))
				return s.Ref("buildx:1")
			},
			want: []windows.Platform{linuxAMD64, win20348},
		},
		{
			name: "entry without os.version, config without either: any build",
			push: func(t *testing.T, s *registrytest.Server) string {
				s.Push(t, "rancher-agent:v2", registrytest.Index(t, registrytest.Docker,
					registrytest.Entry{OS: "windows", Arch: "amd64", NoConfigOSVersion: true}))
				return s.Ref("rancher-agent:v2")
			},
			want: []windows.Platform{winAny},
		},
		{
			name: "entry without a platform object: read from its config",
			push: func(t *testing.T, s *registrytest.Server) string {
				s.Push(t, "bare:1", registrytest.Index(t, registrytest.OCI,
					registrytest.Entry{OS: "windows", Arch: "amd64", OSVersion: v17763, NoPlatform: true}))
				return s.Ref("bare:1")
			},
			want: []windows.Platform{win17763},
		},
		{
			name: "entry with an unreadable os.version is dropped, as containerd matches it to no host",
			push: func(t *testing.T, s *registrytest.Server) string {
				s.Push(t, "odd:1", registrytest.Index(t, registrytest.OCI,
					registrytest.Entry{OS: "windows", Arch: "amd64", OSVersion: "ltsc2022"},
					registrytest.Entry{OS: "windows", Arch: "amd64", OSVersion: v20348}))
				return s.Ref("odd:1")
			},
			want: []windows.Platform{win20348},
		},
		{
			name: "nested index",
			push: func(t *testing.T, s *registrytest.Server) string {
				s.Push(t, "nested:1", registrytest.Nest(t, registrytest.OCI,
					registrytest.Index(t, registrytest.OCI, registrytest.Entry{OS: "linux", Arch: "amd64"}),
					registrytest.Index(t, registrytest.OCI, registrytest.Entry{OS: "windows", Arch: "amd64", OSVersion: v17763})))
				return s.Ref("nested:1")
			},
			want: []windows.Platform{linuxAMD64, win17763},
		},
		{
			name: "digest reference",
			push: func(t *testing.T, s *registrytest.Server) string {
				d := s.Push(t, "pinned:1", registrytest.WindowsImage(t, v20348))
				return s.Ref("pinned@" + d)
			},
			want: []windows.Platform{win20348},
		},
		{
			name: "tag and digest: the digest wins",
			push: func(t *testing.T, s *registrytest.Server) string {
				d := s.Push(t, "both:old", registrytest.WindowsImage(t, v17763))
				s.Push(t, "both:new", registrytest.WindowsImage(t, v20348))
				return s.Ref("both:new@" + d)
			},
			want: []windows.Platform{win17763},
		},
	}
	for _, server := range []struct {
		name string
		opts []registrytest.Option
	}{{name: "https with custom CA", opts: []registrytest.Option{registrytest.WithTLS()}}, {name: "plain http"}} {
		t.Run(server.name, func(t *testing.T) {
			s := registrytest.New(t, server.opts...)
			h := newHarness(t, Config{Registries: []Registry{registryFor(s)}})
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					ref := tt.push(t, s)
					res := h.await(t, ref, PullSecrets{})
					if res.State != StateResolved {
						t.Fatalf("%s: %v %v", ref, res.State, res.Err)
					}
					if diff := cmp.Diff(tt.want, res.Platforms); diff != "" {
						t.Errorf("%s platforms (-want +got):\n%s", ref, diff)
					}
					if !strings.HasPrefix(res.Digest, "sha256:") {
						t.Errorf("%s digest = %q", ref, res.Digest)
					}
				})
			}
		})
	}
}

// TestMirror resolves docker.io references through a loopback mirror, as
// an air-gapped cluster's hosts.toml does.
func TestMirror(t *testing.T) {
	s := registrytest.New(t, registrytest.WithTLS())
	s.Push(t, "library/golang:1.23-windowsservercore", registrytest.Index(t, registrytest.Docker, mixedList(registrytest.Docker)...))
	h := newHarness(t, Config{Registries: []Registry{{Host: "docker.io", Endpoints: []string{"https://" + s.Host()}, AllowPrivate: true, CAFile: s.CAFile()}}})
	for _, ref := range []string{"golang:1.23-windowsservercore", "docker.io/library/golang:1.23-windowsservercore"} {
		res := h.await(t, ref, PullSecrets{})
		if res.State != StateResolved || len(res.Platforms) != 4 {
			t.Fatalf("%s = %+v", ref, res)
		}
	}
	if n := s.Count(http.MethodGet, "manifests"); n != 1 {
		t.Errorf("two spellings of one image made %d manifest GETs, want 1", n)
	}
}
