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
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2/ktesting"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// recordedRuns starts a resolver of one worker whose runs succeed at once
// without a registry, recording the images in the order they ran. The
// first run waits for release, so that every Want is queued before the
// queue's order decides anything.
func recordedRuns(t *testing.T, cfg Config) (r *Resolver, release func(), ran func(n int) []string) {
	t.Helper()
	cfg.Workers = 1
	r, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	var (
		mu    sync.Mutex
		order []string
		first = make(chan struct{})
		done  = make(chan struct{}, 1<<12)
	)
	r.fetch = func(ctx context.Context, rn run) outcome {
		mu.Lock()
		order = append(order, rn.ref.key)
		n := len(order)
		mu.Unlock()
		if n == 1 {
			<-first
		}
		done <- struct{}{}
		return outcome{platforms: []windows.Platform{win17763}, digest: "sha256:" + strings.Repeat("0", 64), shared: true}
	}
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	r.Start(ctx)
	return r, func() { close(first) }, func(n int) []string {
		t.Helper()
		for range n {
			select {
			case <-done:
			case <-time.After(15 * time.Second):
				t.Fatalf("fewer than %d runs after 15s", n)
			}
		}
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(order)
	}
}

// TestRunsTakenByNamespaceInTurn: a namespace that queues many images
// delays another namespace's images by at most one of its own each, in
// the shared scope and in pull-secret scopes alike.
func TestRunsTakenByNamespaceInTurn(t *testing.T) {
	store := scopedStore("registry.example")
	tests := []struct {
		name string
		// tenants queue their images in this order: namespace, images,
		// pull secrets.
		tenants []struct {
			ns     string
			images int
			names  []string
		}
		podPullSecrets bool
	}{
		{name: "a busy namespace and a quiet one, shared scope", tenants: []struct {
			ns     string
			images int
			names  []string
		}{{"busy", 60, nil}, {"quiet", 5, nil}}},
		{name: "three namespaces, one busy", tenants: []struct {
			ns     string
			images int
			names  []string
		}{{"busy", 60, nil}, {"quiet", 4, nil}, {"other", 3, nil}}},
		{name: "pull-secret scopes", podPullSecrets: true, tenants: []struct {
			ns     string
			images int
			names  []string
		}{{"shop", 60, []string{"good"}}, {"other", 5, []string{"good"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{Registries: []Registry{{Host: "registry.example"}}, PodPullSecrets: tt.podPullSecrets}
			if tt.podPullSecrets {
				cfg.GetSecret = store.get
			}
			r, release, ran := recordedRuns(t, cfg)
			total := 0
			for _, tn := range tt.tenants {
				for i := range tn.images {
					ref := fmt.Sprintf("registry.example/%s/app%d:1", tn.ns, i)
					if !r.Want(ref, tn.ns+"/pod", PullSecrets{Namespace: tn.ns, Names: tn.names}) {
						t.Fatalf("Want(%s) did not queue", ref)
					}
				}
				total += tn.images
			}
			release()
			order := ran(total)
			// Every namespace but the first gets a turn in each round:
			// its k-th image runs within the first 1 + k*len(tenants)
			// runs (1: the run under way when the others were queued).
			for _, tn := range tt.tenants[1:] {
				k := 0
				for pos, key := range order {
					if !strings.Contains(key, "/"+tn.ns+"/") {
						continue
					}
					k++
					if limit := 1 + k*len(tt.tenants); pos+1 > limit {
						t.Errorf("namespace %s: image %d of %d ran %d-th, want within the first %d runs", tn.ns, k, tn.images, pos+1, limit)
						break
					}
				}
				if k != tn.images {
					t.Errorf("namespace %s: %d of %d images ran", tn.ns, k, tn.images)
				}
			}
		})
	}
}

// TestRateLimitPausesEndpoint: a 429 with Retry-After pauses the endpoint
// that answered it, on the resolver's clock: the registry's other
// endpoints, and other registries, are asked meanwhile, and the endpoint
// is asked again once the pause has passed on that clock, however little
// real time has.
func TestRateLimitPausesEndpoint(t *testing.T) {
	tests := []struct {
		name string
		// mirror429 is answered by the mirror to the first HEAD; the
		// upstream answers upstream429 to its first HEAD.
		mirror429, upstream429 bool
		// mirrorFirst lists the mirror before the upstream as endpoints
		// of the image's registry; otherwise the registry is the
		// upstream alone.
		mirrorFirst bool
		// step advances the resolver's clock after the first image.
		step time.Duration
		// wantMirrorHeads and wantUpstreamHeads are the HEADs each saw
		// once both images resolved.
		wantMirrorHeads, wantUpstreamHeads int
	}{
		{name: "a mirror's 429 pauses the mirror, not the upstream", mirror429: true, mirrorFirst: true,
			wantMirrorHeads: 1, wantUpstreamHeads: 2},
		{name: "the mirror is asked again once the pause passed on the resolver's clock", mirror429: true, mirrorFirst: true, step: 2 * time.Hour,
			wantMirrorHeads: 2, wantUpstreamHeads: 1},
		{name: "a registry's pause ends on the resolver's clock", upstream429: true, step: 2 * time.Hour,
			wantMirrorHeads: 0, wantUpstreamHeads: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mirror, upstream := registrytest.New(t, registrytest.WithTLS()), registrytest.New(t, registrytest.WithTLS())
			for _, s := range []*registrytest.Server{mirror, upstream} {
				s.Push(t, "app:1", registrytest.WindowsImage(t, v17763))
				s.Push(t, "app:2", registrytest.WindowsImage(t, v17763))
			}
			pause := registrytest.Fault{Match: registrytest.OnKind(http.MethodHead, "manifests"), Times: 1,
				Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {"3600"}}}
			if tt.mirror429 {
				mirror.AddFault(pause)
			}
			if tt.upstream429 {
				upstream.AddFault(pause)
			}
			reg := registryFor(upstream)
			if tt.mirrorFirst {
				// Both serve 127.0.0.1 with certificates of their own: one CA
				// file holds both.
				reg.Endpoints = []string{mirror.Endpoint(), upstream.Endpoint()}
				reg.CAFile = bothCAs(t, mirror, upstream)
			}
			clk := clocktesting.NewFakePassiveClock(time.Now())
			h := newHarness(t, Config{Registries: []Registry{reg}, Clock: clk, MaxAutoRetries: 1, RetryBaseDelay: time.Hour})
			h.await(t, upstream.Ref("app:1"), PullSecrets{})
			clk.SetTime(clk.Now().Add(tt.step))
			if res := h.await(t, upstream.Ref("app:2"), PullSecrets{}); res.State != StateResolved {
				t.Fatalf("second image: %v %v", res.State, res.Err)
			}
			if got := mirror.Count(http.MethodHead, "manifests"); got != tt.wantMirrorHeads {
				t.Errorf("mirror saw %d HEADs, want %d", got, tt.wantMirrorHeads)
			}
			if got := upstream.Count(http.MethodHead, "manifests"); got != tt.wantUpstreamHeads {
				t.Errorf("upstream saw %d HEADs, want %d", got, tt.wantUpstreamHeads)
			}
		})
	}
}

// bothCAs writes one PEM file with the certificates of both servers.
func bothCAs(t *testing.T, a, b *registrytest.Server) string {
	t.Helper()
	var pem []byte
	for _, s := range []*registrytest.Server{a, b} {
		data, err := os.ReadFile(s.CAFile())
		if err != nil {
			t.Fatal(err)
		}
		pem = append(pem, data...)
	}
	path := filepath.Join(t.TempDir(), "cas.pem")
	if err := os.WriteFile(path, pem, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestScopedEntriesPerNamespaceBounded: a namespace whose pods name pull
// secrets for ever new images holds at most MaxScopedPerNamespace scoped
// entries, replacing its own, and another namespace's stay.
func TestScopedEntriesPerNamespaceBounded(t *testing.T) {
	const bound = 4
	tests := []struct {
		name   string
		images int
	}{
		{"under the bound", bound - 1},
		{"many times the bound", 5 * bound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := registrytest.New(t, registrytest.WithTLS())
			s.RequireBearer(map[string]string{goodUser: goodPassword})
			store := scopedStore(s.Host())
			h := newHarness(t, Config{Registries: []Registry{registryFor(s)}, PodPullSecrets: true, GetSecret: store.get, MaxScopedPerNamespace: bound})
			for i := range 2 {
				s.Push(t, fmt.Sprintf("other/app:%d", i), registrytest.WindowsImage(t, v17763))
				if res := h.await(t, s.Ref(fmt.Sprintf("other/app:%d", i)), otherGood); res.State == StatePending {
					t.Fatalf("other namespace: %v", res.State)
				}
			}
			for i := range tt.images {
				s.Push(t, fmt.Sprintf("shop/app:%d", i), registrytest.WindowsImage(t, v17763))
				h.await(t, s.Ref(fmt.Sprintf("shop/app:%d", i)), shopStale)
			}
			h.Resolver.mu.RLock()
			defer h.Resolver.mu.RUnlock()
			perNamespace := map[string]int{}
			for _, e := range h.cache.entries {
				if e.scope != "" {
					perNamespace[e.pull.Namespace]++
				}
			}
			if n := perNamespace["shop"]; n > bound || n < min(tt.images, bound) {
				t.Errorf("namespace shop holds %d scoped entries after %d images, want %d", n, tt.images, min(tt.images, bound))
			}
			if n := perNamespace["other"]; n != 2 {
				t.Errorf("namespace other holds %d scoped entries, want 2 (another namespace's were replaced)", n)
			}
		})
	}
}

// TestPullSecretsPerPodCapped: names past MaxPullSecretsPerPod are never
// read, and pods that differ only past them share a scope.
func TestPullSecretsPerPodCapped(t *testing.T) {
	tests := []struct {
		name         string
		first, later []string
		// shared: the later pod sees the first one's facts without a
		// registry request.
		shared bool
	}{
		{"differ past the cap", []string{"good", "stale", "x1"}, []string{"good", "stale", "x2"}, true},
		{"differ within the cap", []string{"good", "x1"}, []string{"good", "x2"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := registrytest.New(t, registrytest.WithTLS())
			s.Push(t, "private:1", registrytest.WindowsImage(t, v17763))
			s.RequireBearer(map[string]string{goodUser: goodPassword})
			store := scopedStore(s.Host())
			var (
				mu   sync.Mutex
				read = map[string]int{}
			)
			get := func(ctx context.Context, namespace, name string) (*v1.Secret, error) {
				mu.Lock()
				read[namespace+"/"+name]++
				mu.Unlock()
				return store.get(ctx, namespace, name)
			}
			h := newHarness(t, Config{Registries: []Registry{registryFor(s)}, PodPullSecrets: true, GetSecret: get, MaxPullSecretsPerPod: 2})
			ref := s.Ref("private:1")
			if res := h.await(t, ref, PullSecrets{Namespace: "shop", Names: tt.first}); res.State != StateResolved {
				t.Fatalf("first pod: %v %v", res.State, res.Err)
			}
			asked := s.Total()
			res, known := h.Lookup(ref, PullSecrets{Namespace: "shop", Names: tt.later})
			if got := known && res.State == StateResolved; got != tt.shared {
				t.Errorf("later pod sees the first one's facts: %v, want %v", got, tt.shared)
			}
			if tt.shared && s.Total() != asked {
				t.Errorf("registry asked for a pod of the same scope")
			}
			mu.Lock()
			defer mu.Unlock()
			for _, name := range append(tt.first[2:], tt.later[2:]...) {
				if n := read["shop/"+name]; n != 0 {
					t.Errorf("secret %s, past the cap, read %d times", name, n)
				}
			}
		})
	}
}
