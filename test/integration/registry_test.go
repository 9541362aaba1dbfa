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

package integration

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/windows-aware/windows-aware/internal/registryserver"
	"github.com/windows-aware/windows-aware/internal/testimage"
)

// startRegistry starts the distribution registry (bin/tools/registry) for
// one test and stops it when the test ends, checking that it left no
// process behind. Without the binary the test is skipped, or fails in CI.
func startRegistry(t *testing.T, opts registryserver.Options) *registryserver.Server {
	t.Helper()
	requireRegistryBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	s, err := registryserver.Start(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("registry %s (pid %d) answered after %s", s.Host, s.Pid(), time.Since(start).Round(time.Millisecond))
	t.Cleanup(func() {
		pid, dir := s.Pid(), s.Dir
		if t.Failed() {
			t.Logf("registry log ends with:\n%s", s.Tail(4096))
		}
		if err := s.Stop(); err != nil {
			t.Errorf("stopping the registry: %v", err)
		}
		if !gone(pid) {
			t.Errorf("registry pid %d still exists after Stop", pid)
		}
		if opts.Dir == "" {
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("registry directory %s still exists after Stop (%v)", dir, err)
			}
		}
	})
	return s
}

// listedImage is what a client reads back for one manifest of an image:
// its entry in the index (nil for a single image) and its config.
type listedImage struct {
	Entry  *v1.Platform
	Config v1.Platform
	// AttestationOf is the vnd.docker.reference.digest of an attestation
	// entry.
	AttestationOf string
}

// readBack reads ref as a client that knows nothing of how it was pushed.
func readBack(ctx context.Context, ref name.Reference, opts []remote.Option) (types.MediaType, []listedImage, error) {
	desc, err := remote.Get(ref, opts...)
	if err != nil {
		return "", nil, err
	}
	configOf := func(img v1.Image) (v1.Platform, error) {
		cfg, err := img.ConfigFile()
		if err != nil {
			return v1.Platform{}, err
		}
		return v1.Platform{OS: cfg.OS, Architecture: cfg.Architecture, Variant: cfg.Variant, OSVersion: cfg.OSVersion}, nil
	}
	if !desc.MediaType.IsIndex() {
		img, err := desc.Image()
		if err != nil {
			return "", nil, err
		}
		p, err := configOf(img)
		return desc.MediaType, []listedImage{{Config: p}}, err
	}
	idx, err := desc.ImageIndex()
	if err != nil {
		return "", nil, err
	}
	im, err := idx.IndexManifest()
	if err != nil {
		return "", nil, err
	}
	var out []listedImage
	for _, m := range im.Manifests {
		img, err := remote.Image(ref.Context().Digest(m.Digest.String()), opts...)
		if err != nil {
			return "", nil, fmt.Errorf("entry %s: %w", m.Digest, err)
		}
		p, err := configOf(img)
		if err != nil {
			return "", nil, fmt.Errorf("entry %s config: %w", m.Digest, err)
		}
		out = append(out, listedImage{Entry: m.Platform, Config: p, AttestationOf: m.Annotations[testimage.ReferenceDigestAnnotation]})
	}
	return desc.MediaType, out, nil
}

func platform(os, arch, osVersion string) v1.Platform {
	return v1.Platform{OS: os, Architecture: arch, OSVersion: osVersion}
}

func entry(os, arch, osVersion string) *v1.Platform {
	p := platform(os, arch, osVersion)
	return &p
}

// TestRegistryHarness pushes every kind of synthetic image, in both
// flavours, to the real registry over TLS with its htpasswd credentials,
// reads each back as a client would, and checks that anonymous or
// unverified access is refused.
func TestRegistryHarness(t *testing.T) {
	s := startRegistry(t, registryserver.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	const (
		v2019 = testimage.OSVersion2019
		v2022 = testimage.OSVersion2022
	)
	linux := lin("amd64")
	linuxARM := testimage.Entry{OS: "linux", Arch: "arm64", Variant: "v8"}
	armEntry := &v1.Platform{OS: "linux", Architecture: "arm64", Variant: "v8"}

	cases := []struct {
		name    string
		index   bool
		entries []testimage.Entry
		want    []listedImage
	}{
		{
			name:    "single Windows image built on 2022",
			entries: []testimage.Entry{win(v2022)},
			want:    []listedImage{{Config: platform("windows", "amd64", v2022)}},
		},
		{
			name:  "Windows-only list, 2019 and 2022",
			index: true, entries: []testimage.Entry{win(v2019), win(v2022)},
			want: []listedImage{
				{Entry: entry("windows", "amd64", v2019), Config: platform("windows", "amd64", v2019)},
				{Entry: entry("windows", "amd64", v2022), Config: platform("windows", "amd64", v2022)},
			},
		},
		{
			name:  "Linux and Windows list",
			index: true, entries: []testimage.Entry{linux, linuxARM, win(v2019), win(v2022)},
			want: []listedImage{
				{Entry: entry("linux", "amd64", ""), Config: platform("linux", "amd64", "")},
				{Entry: armEntry, Config: v1.Platform{OS: "linux", Architecture: "arm64", Variant: "v8"}},
				{Entry: entry("windows", "amd64", v2019), Config: platform("windows", "amd64", v2019)},
				{Entry: entry("windows", "amd64", v2022), Config: platform("windows", "amd64", v2022)},
			},
		},
		{
			name:  "entries without os.version: only in the config, and nowhere",
			index: true, entries: []testimage.Entry{{OS: "windows", Arch: "amd64", ConfigOSVersion: v2022}, win("")},
			want: []listedImage{
				{Entry: entry("windows", "amd64", ""), Config: platform("windows", "amd64", v2022)},
				{Entry: entry("windows", "amd64", ""), Config: platform("windows", "amd64", "")},
			},
		},
		{
			name:  "attestation entry after the images",
			index: true, entries: []testimage.Entry{{OS: "linux", Arch: "amd64", Attested: true}, {OS: "windows", Arch: "amd64", OSVersion: v2022, Attested: true}},
			want: []listedImage{
				{Entry: entry("linux", "amd64", ""), Config: platform("linux", "amd64", "")},
				{Entry: entry("windows", "amd64", v2022), Config: platform("windows", "amd64", v2022)},
				{Entry: entry("unknown", "unknown", ""), Config: platform("unknown", "unknown", ""), AttestationOf: "linux"},
				{Entry: entry("unknown", "unknown", ""), Config: platform("unknown", "unknown", ""), AttestationOf: "windows"},
			},
		},
	}
	wantMediaType := map[testimage.Flavour]map[bool]types.MediaType{
		testimage.Docker: {false: types.DockerManifestSchema2, true: types.DockerManifestList},
		testimage.OCI:    {false: types.OCIManifestSchema1, true: types.OCIImageIndex},
	}
	for _, flavour := range []testimage.Flavour{testimage.Docker, testimage.OCI} {
		for i, tc := range cases {
			t.Run(string(flavour)+"/"+tc.name, func(t *testing.T) {
				spec := testimage.Spec{Flavour: flavour, Index: tc.index, Entries: tc.entries}
				a, err := spec.Build()
				if err != nil {
					t.Fatal(err)
				}
				tagged := fmt.Sprintf("harness/%s-%d:v1", flavour, i)
				pushed, err := s.Push(ctx, tagged, a)
				if err != nil {
					t.Fatal(err)
				}
				ref, err := s.Reference(tagged)
				if err != nil {
					t.Fatal(err)
				}
				mediaType, got, err := readBack(ctx, ref, s.RemoteOptions(ctx))
				if err != nil {
					t.Fatalf("reading %s back: %v", ref, err)
				}
				if want := wantMediaType[flavour][tc.index]; mediaType != want {
					t.Errorf("media type %s, want %s", mediaType, want)
				}
				// The attestations name the image they attest by digest:
				// replace the digest by the OS of that image.
				osByDigest := map[string]string{}
				if tc.index {
					idx, err := remote.Index(pushed, s.RemoteOptions(ctx)...)
					if err != nil {
						t.Fatal(err)
					}
					im, err := idx.IndexManifest()
					if err != nil {
						t.Fatal(err)
					}
					for _, m := range im.Manifests {
						osByDigest[m.Digest.String()] = m.Platform.OS
					}
				}
				for i := range got {
					if d := got[i].AttestationOf; d != "" {
						got[i].AttestationOf = osByDigest[d]
					}
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("read back from %s (-want +got):\n%s", ref, diff)
				}
			})
		}
	}

	t.Run("anonymous access is refused", func(t *testing.T) {
		ref, err := s.Reference("harness/docker-0:v1")
		if err != nil {
			t.Fatal(err)
		}
		_, err = remote.Get(ref, remote.WithContext(ctx), remote.WithTransport(s.Transport()))
		var terr *transport.Error
		if !errors.As(err, &terr) || terr.StatusCode != http.StatusUnauthorized {
			t.Fatalf("anonymous GET of %s: %v, want a 401 transport error", ref, err)
		}
		resp, err := (&http.Client{Transport: s.Transport()}).Get(s.URL() + "/v2/")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(got, "Basic ") {
			t.Errorf("GET /v2/ without credentials: %s, WWW-Authenticate %q; want 401 and a Basic challenge", resp.Status, got)
		}
	})

	t.Run("a wrong password is refused", func(t *testing.T) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL()+"/v2/harness/docker-0/manifests/v1", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.SetBasicAuth(s.Username, s.Password+"x")
		resp, err := (&http.Client{Transport: s.Transport()}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET with a wrong password: %s, want 401", resp.Status)
		}
	})

	t.Run("the certificate is only trusted through the CA", func(t *testing.T) {
		ref, err := s.Reference("harness/docker-0:v1")
		if err != nil {
			t.Fatal(err)
		}
		_, err = remote.Get(ref, remote.WithContext(ctx), remote.WithAuth(s.Authenticator()))
		var unknownCA x509.UnknownAuthorityError
		if !errors.As(err, &unknownCA) {
			t.Fatalf("GET without the CA: %v, want x509.UnknownAuthorityError", err)
		}
	})
}

// TestRegistryFaultProxy reads a manifest of the real registry through the
// fault proxy under each fault.
func TestRegistryFaultProxy(t *testing.T) {
	s := startRegistry(t, registryserver.Options{InMemory: true})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a, err := single(win(testimage.OSVersion2019)).Build()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Push(ctx, "faults/app:1", a); err != nil {
		t.Fatal(err)
	}
	proxy, err := s.NewFaultProxy()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = proxy.Close() })

	// get reads the manifest through the proxy on a new connection.
	get := func() (*http.Response, time.Duration, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+proxy.Host+"/v2/faults/app/manifests/1", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.SetBasicAuth(s.Username, s.Password)
		req.Header.Set("Accept", string(types.DockerManifestSchema2))
		transport := s.Transport()
		defer transport.CloseIdleConnections()
		start := time.Now()
		resp, err := (&http.Client{Transport: transport}).Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return resp, time.Since(start), err
	}

	cases := []struct {
		name           string
		fault          registryserver.Fault
		wantStatus     int // 0: want a transport error
		wantRetryAfter string
		minDuration    time.Duration
	}{
		{name: "no fault", wantStatus: http.StatusOK},
		{name: "500 ms latency", fault: registryserver.Fault{Latency: 500 * time.Millisecond}, wantStatus: http.StatusOK, minDuration: 500 * time.Millisecond},
		{name: "429 with Retry-After", fault: registryserver.Fault{Status: http.StatusTooManyRequests, RetryAfter: "3"}, wantStatus: http.StatusTooManyRequests, wantRetryAfter: "3"},
		{name: "503", fault: registryserver.Fault{Status: http.StatusServiceUnavailable}, wantStatus: http.StatusServiceUnavailable},
		{name: "connection dropped", fault: registryserver.Fault{Drop: true}},
		{name: "fault on other paths only", fault: registryserver.Fault{Status: http.StatusInternalServerError, Match: func(r *http.Request) bool {
			return strings.Contains(r.URL.Path, "/blobs/")
		}}, wantStatus: http.StatusOK},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			proxy.Set(tc.fault)
			defer proxy.Set(registryserver.Fault{})
			resp, took, err := get()
			switch {
			case tc.wantStatus == 0:
				if err == nil {
					t.Fatalf("got %s, want a transport error", resp.Status)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if resp.StatusCode != tc.wantStatus {
				t.Errorf("status %s, want %d", resp.Status, tc.wantStatus)
			}
			if got := resp.Header.Get("Retry-After"); got != tc.wantRetryAfter {
				t.Errorf("Retry-After %q, want %q", got, tc.wantRetryAfter)
			}
			if took < tc.minDuration {
				t.Errorf("took %s, want at least %s", took, tc.minDuration)
			}
			if tc.wantStatus == http.StatusOK && resp.Header.Get("Docker-Content-Digest") == "" {
				t.Error("no Docker-Content-Digest: the answer did not come from the registry")
			}
		})
	}

	t.Run("down refuses connections, up serves again", func(t *testing.T) {
		if err := proxy.SetDown(true); err != nil {
			t.Fatal(err)
		}
		_, _, err := get()
		if !errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("while down: %v, want connection refused", err)
		}
		if err := proxy.SetDown(false); err != nil {
			t.Fatal(err)
		}
		resp, _, err := get()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Errorf("up again: %v %v, want 200", resp, err)
		}
	})

	t.Run("go-containerregistry reads through the proxy", func(t *testing.T) {
		proxy.Set(registryserver.Fault{Latency: 100 * time.Millisecond})
		defer proxy.Set(registryserver.Fault{})
		proxy.ResetCounts()
		ref, err := name.ParseReference(proxy.Host + "/faults/app:1")
		if err != nil {
			t.Fatal(err)
		}
		_, got, err := readBack(ctx, ref, s.RemoteOptions(ctx))
		if err != nil {
			t.Fatal(err)
		}
		if want := []listedImage{{Config: platform("windows", "amd64", testimage.OSVersion2019)}}; !cmp.Equal(got, want) {
			t.Errorf("read back %+v, want %+v", got, want)
		}
		if proxy.Requests() == 0 || proxy.Forwarded() != proxy.Requests() {
			t.Errorf("proxy saw %d requests and forwarded %d; want every request forwarded", proxy.Requests(), proxy.Forwarded())
		}
	})
}

// TestDemoRegistry starts the registry make demo uses and checks that each
// demo image reads back with the Windows builds it was declared with, with
// the credentials of the Docker config the demo hands the scheduler.
func TestDemoRegistry(t *testing.T) {
	requireRegistryBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	d, err := registryserver.StartDemo(ctx, registryserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("demo registry %s up with %d images in %s", d.Host, len(d.Images), time.Since(start).Round(time.Millisecond))
	t.Cleanup(func() { _ = d.Stop() })

	config, err := os.ReadFile(d.DockerConfigFile)
	if err != nil {
		t.Fatal(err)
	}
	keychain, err := dockerConfigKeychain(t, config)
	if err != nil {
		t.Fatal(err)
	}
	opts := []remote.Option{remote.WithContext(ctx), remote.WithTransport(d.Transport()), remote.WithAuthFromKeychain(keychain)}
	if len(d.Images) != len(registryserver.DemoImages) {
		t.Fatalf("%d images pushed, want %d", len(d.Images), len(registryserver.DemoImages))
	}
	for _, img := range d.Images {
		ref, err := name.ParseReference(img.Reference)
		if err != nil {
			t.Fatal(err)
		}
		_, got, err := readBack(ctx, ref, opts)
		if err != nil {
			t.Fatalf("%s: %v", img.Reference, err)
		}
		var builds []string
		for _, li := range got {
			if li.Config.OS == "windows" {
				parts := strings.Split(li.Config.OSVersion, ".")
				builds = append(builds, strings.Join(parts[:min(3, len(parts))], "."))
			}
		}
		if !cmp.Equal(builds, img.Builds) {
			t.Errorf("%s: Windows builds %v, want %v", img.Reference, builds, img.Builds)
		}
		if strings.Contains(img.Tag, "ltsc") || strings.Contains(img.Tag, "17763") || strings.Contains(img.Tag, "20348") {
			t.Errorf("%s: a demo image's tag must not name its Windows build", img.Reference)
		}
	}
}

// dockerConfigKeychain is a keychain that reads only config, a Docker
// config.json, the way a client given that file would.
func dockerConfigKeychain(t *testing.T, config []byte) (authn.Keychain, error) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.json"), config, 0o600); err != nil {
		return nil, err
	}
	t.Setenv("DOCKER_CONFIG", dir)
	return authn.DefaultKeychain, nil
}

// TestRegistryLifecycle starts a registry with a pid file, restarts it
// (filesystem storage keeps what was pushed), and stops it.
func TestRegistryLifecycle(t *testing.T) {
	requireRegistryBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pids", "registry.pid")
	s, err := registryserver.Start(ctx, registryserver.Options{Dir: filepath.Join(dir, "registry"), LogDir: filepath.Join(dir, "logs"), PIDFile: pidFile})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	binary, _ := registryserver.FindBinary()
	rec, err := os.ReadFile(pidFile)
	if want := fmt.Sprintf("%d\n%s\n", s.Pid(), binary); err != nil || string(rec) != want {
		t.Errorf("pid file %q (%v), want %q", rec, err, want)
	}
	if !strings.HasPrefix(s.LogFile, filepath.Join(dir, "logs")) {
		t.Errorf("log file %s is not in LogDir", s.LogFile)
	}

	a, err := testimage.Spec{Flavour: testimage.OCI, Entries: []testimage.Entry{win(testimage.OSVersion2025)}}.Build()
	if err != nil {
		t.Fatal(err)
	}
	pushed, err := s.Push(ctx, "lifecycle/app:1", a)
	if err != nil {
		t.Fatal(err)
	}
	first, host := s.Pid(), s.Host
	if err := s.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if s.Host != host || s.Pid() == first || !gone(first) {
		t.Errorf("after Restart: host %s (was %s), pid %d (was %d, gone: %v)", s.Host, host, s.Pid(), first, gone(first))
	}
	if _, err := remote.Head(pushed, s.RemoteOptions(ctx)...); err != nil {
		t.Errorf("%s after Restart: %v", pushed, err)
	}

	pid := s.Pid()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if !gone(pid) {
		t.Errorf("pid %d still exists after Stop", pid)
	}
	if _, err := os.Stat(pidFile); !os.IsNotExist(err) {
		t.Errorf("pid file still exists after Stop (%v)", err)
	}
	if _, err := os.Stat(s.Dir); err != nil {
		t.Errorf("Stop removed Dir %s, which the caller gave: %v", s.Dir, err)
	}
}

// requireRegistryBinary skips the test when bin/tools/registry is missing,
// or fails it in CI.
func requireRegistryBinary(t *testing.T) {
	t.Helper()
	if _, err := registryserver.FindBinary(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skipf("%v (outside CI the test is skipped; in CI, with CI=true, this is a failure)", err)
	}
}

// gone reports whether no process has pid.
func gone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
