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
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

const (
	goodUser, goodPassword = "puller", "s3cret-password"
	wrongPassword          = "wrong-password"
)

// secretStore serves pull secrets by name, counting reads.
type secretStore struct {
	mu      sync.Mutex
	secrets map[string]*v1.Secret
	reads   int
}

func newSecretStore(host string) *secretStore {
	mk := func(name, password string) *v1.Secret {
		return &v1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, UID: "uid-" + "name"},
			Type:       v1.SecretTypeDockerConfigJson,
			Data:       map[string][]byte{v1.DockerConfigJsonKey: registrytest.DockerConfigJSON(goodUser, password, host)},
		}
	}
	return &secretStore{secrets: map[string]*v1.Secret{
		"shop/stale": mk("stale", wrongPassword),
		"shop/good":  mk("good", goodPassword),
	}}
}

func (s *secretStore) get(_ context.Context, namespace, name string) (*v1.Secret, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads++
	if sec, ok := s.secrets[namespace+"/"+name]; ok {
		return sec.DeepCopy(), nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "secrets"}, name)
}

func TestResolveFailures(t *testing.T) {
	tests := []struct {
		name string
		// setup prepares s and returns the reference to resolve.
		setup     func(t *testing.T, s *registrytest.Server) string
		wantClass ErrorClass
		// wantDetail is a part of the error message.
		wantDetail string
	}{
		{
			name:       "404",
			setup:      func(t *testing.T, s *registrytest.Server) string { return s.Ref("missing:1") },
			wantClass:  ClassNotFound,
			wantDetail: "HTTP 404",
		},
		{
			name: "401 without credentials",
			setup: func(t *testing.T, s *registrytest.Server) string {
				s.Push(t, "private:1", registrytest.WindowsImage(t, v17763))
				s.RequireBearer(map[string]string{goodUser: goodPassword})
				return s.Ref("private:1")
			},
			wantClass:  ClassUnauthorized,
			wantDetail: "check imagePullSecrets",
		},
		{
			name: "403 on the manifest",
			setup: func(t *testing.T, s *registrytest.Server) string {
				s.Push(t, "denied:1", registrytest.WindowsImage(t, v17763))
				s.AddFault(registrytest.Fault{Match: registrytest.OnKind("", "manifests"), Times: -1, Status: http.StatusForbidden})
				return s.Ref("denied:1")
			},
			wantClass: ClassUnauthorized,
		},
		{
			name: "503 for ever",
			setup: func(t *testing.T, s *registrytest.Server) string {
				s.Push(t, "down:1", registrytest.WindowsImage(t, v17763))
				s.AddFault(registrytest.Fault{Match: registrytest.OnKind("", "manifests"), Times: -1, Status: http.StatusServiceUnavailable})
				return s.Ref("down:1")
			},
			wantClass:  ClassUnavailable,
			wantDetail: "HTTP 503",
		},
		{
			name: "dropped connections",
			setup: func(t *testing.T, s *registrytest.Server) string {
				s.Push(t, "flaky:1", registrytest.WindowsImage(t, v17763))
				s.AddFault(registrytest.Fault{Match: registrytest.OnKind("", "manifests"), Times: -1, Drop: true})
				return s.Ref("flaky:1")
			},
			wantClass: ClassUnavailable,
		},
		{
			name: "request timeout",
			setup: func(t *testing.T, s *registrytest.Server) string {
				s.Push(t, "slow:1", registrytest.WindowsImage(t, v17763))
				s.AddFault(registrytest.Fault{Match: registrytest.OnKind("", "manifests"), Times: -1, Delay: 2 * time.Second})
				return s.Ref("slow:1")
			},
			wantClass:  ClassUnavailable,
			wantDetail: "timed out",
		},
		{
			name: "schema 1",
			setup: func(t *testing.T, s *registrytest.Server) string {
				s.PushRawManifest(t, "ancient:1", "application/vnd.docker.distribution.manifest.v1+prettyjws", []byte(`{"schemaVersion":1,"name":"ancient","tag":"1","fsLayers":[],"history":[]}`))
				return s.Ref("ancient:1")
			},
			wantClass:  ClassInvalid,
			wantDetail: "schema 1",
		},
		{
			name: "unknown media type",
			setup: func(t *testing.T, s *registrytest.Server) string {
				s.PushRawManifest(t, "helm:1", "application/vnd.cncf.helm.chart.v1+json", []byte(`{"schemaVersion":2}`))
				return s.Ref("helm:1")
			},
			wantClass:  ClassInvalid,
			wantDetail: "unknown manifest media type",
		},
		{
			name: "manifest over 4 MiB",
			setup: func(t *testing.T, s *registrytest.Server) string {
				big := fmt.Sprintf(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[],"annotations":{"pad":%q}}`, strings.Repeat("x", 5<<20))
				s.PushRawManifest(t, "huge:1", "application/vnd.oci.image.index.v1+json", []byte(big))
				return s.Ref("huge:1")
			},
			wantClass:  ClassInvalid,
			wantDetail: "larger than 4 MiB",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := registrytest.New(t)
			ref := tt.setup(t, s)
			h := newHarness(t, Config{Registries: []Registry{registryFor(s)}, RequestTimeout: 500 * time.Millisecond, MaxAutoRetries: 1})
			res := h.await(t, ref, PullSecrets{})
			if res.State != StateFailed || res.Class != tt.wantClass {
				t.Fatalf("%s = %v %v (%v), want failed %v", ref, res.State, res.Class, res.Err, tt.wantClass)
			}
			msg := res.Err.Error()
			for _, part := range []string{ref, s.Host(), tt.wantDetail} {
				if !strings.Contains(msg, part) {
					t.Errorf("error %q does not name %q", msg, part)
				}
			}
			if e := ErrorOf(res); e == nil || e.Class != tt.wantClass {
				t.Errorf("ErrorOf = %+v", e)
			}
		})
	}
}

func TestConnectionRefused(t *testing.T) {
	s := registrytest.New(t)
	reg := registryFor(s)
	ref := s.Ref("gone:1")
	s.Close()
	h := newHarness(t, Config{Registries: []Registry{reg}, MaxAutoRetries: 1})
	res := h.await(t, ref, PullSecrets{})
	if res.State != StateFailed || res.Class != ClassUnavailable || !strings.Contains(res.Err.Error(), "connection refused") {
		t.Fatalf("%s = %v %v %v", ref, res.State, res.Class, res.Err)
	}
}

// TestPullSecrets: the pod names a stale secret first and the right one
// second; the resolver tries both, as the kubelet does, and the error
// messages never carry the passwords.
func TestPullSecrets(t *testing.T) {
	s := registrytest.New(t, registrytest.WithTLS())
	s.Push(t, "contoso/orders-api:1.4.2", registrytest.WindowsImage(t, v17763))
	s.RequireBearer(map[string]string{goodUser: goodPassword})
	store := newSecretStore(s.Host())
	h := newHarness(t, Config{Registries: []Registry{registryFor(s)}, PodPullSecrets: true, GetSecret: store.get})
	ref := s.Ref("contoso/orders-api:1.4.2")

	// Without secrets: 401, and the same credentials are not retried
	// within the negative TTL.
	res := h.await(t, ref, PullSecrets{Namespace: "shop"})
	if res.State != StateFailed || res.Class != ClassUnauthorized {
		t.Fatalf("anonymous: %v %v %v", res.State, res.Class, res.Err)
	}
	if h.Want(ref, "shop/a", PullSecrets{Namespace: "shop"}) {
		t.Fatalf("Want with the credentials that just failed queued another try")
	}
	// With only the stale one: still 401.
	stale := PullSecrets{Namespace: "shop", Names: []string{"stale"}}
	if !h.Want(ref, "shop/b", stale) {
		t.Fatalf("Want with new credentials did not retry")
	}
	res = h.awaitState(t, ref, stale, func(Result) bool { return len(h.reportsTo("shop/b")) > 0 })
	if res.State != StateFailed || res.Class != ClassUnauthorized {
		t.Fatalf("stale secret: %v %v %v", res.State, res.Class, res.Err)
	}
	if strings.Contains(res.Err.Error(), wrongPassword) || strings.Contains(res.Err.Error(), goodUser) {
		t.Fatalf("error message carries credentials: %v", res.Err)
	}
	tokens := s.Count(http.MethodGet, "token")
	// Stale first, good second, plus a secret that does not exist.
	both := PullSecrets{Namespace: "shop", Names: []string{"stale", "absent", "good"}}
	if !h.Want(ref, "shop/c", both) {
		t.Fatalf("Want with new credentials did not retry")
	}
	res = h.awaitState(t, ref, both, func(res Result) bool { return res.State == StateResolved })
	if diff := res.Platforms; len(diff) != 1 || diff[0] != win17763 {
		t.Fatalf("platforms = %+v", res.Platforms)
	}
	if n := s.Count(http.MethodGet, "token") - tokens; n < 2 {
		t.Errorf("%d token requests for [stale, good], want both tried", n)
	}
	h.awaitTold(t, "shop/c", 1)
}

func TestDockerConfigFile(t *testing.T) {
	s := registrytest.New(t)
	s.Push(t, "private:1", registrytest.WindowsImage(t, v20348))
	s.RequireBearer(map[string]string{goodUser: goodPassword})
	file := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(file, registrytest.DockerConfigJSON(goodUser, goodPassword, s.Host()), 0o600); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, Config{Registries: []Registry{registryFor(s)}, DockerConfigFile: file})
	if res := h.await(t, s.Ref("private:1"), PullSecrets{}); res.State != StateResolved {
		t.Fatalf("%v %v", res.State, res.Err)
	}
	if _, err := New(Config{DockerConfigFile: filepath.Join(t.TempDir(), "absent.json")}); err == nil {
		t.Errorf("New with a missing docker config file did not fail")
	}
}

// TestRetryAfter: a 429 fails the run at once (the client's own retries
// are off), tells the waiter, and the automatic retry waits for
// Retry-After even though the backoff would be shorter.
func TestRetryAfter(t *testing.T) {
	s := registrytest.New(t)
	s.Push(t, "hub:1", registrytest.WindowsImage(t, v20348))
	s.AddFault(registrytest.Fault{
		Match: registrytest.OnKind(http.MethodHead, "manifests"), Times: 1,
		Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {"1"}},
	})
	h := newHarness(t, Config{Registries: []Registry{registryFor(s)}, RetryBaseDelay: 5 * time.Millisecond})
	ref := s.Ref("hub:1")
	if !h.Want(ref, "pod", PullSecrets{}) {
		t.Fatalf("Want did not queue")
	}
	res := h.awaitState(t, ref, PullSecrets{}, func(res Result) bool { return res.State != StatePending })
	if res.State != StateFailed || res.Class != ClassRateLimited {
		t.Fatalf("first run: %v %v %v", res.State, res.Class, res.Err)
	}
	if n := s.Count(http.MethodHead, "manifests"); n != 1 {
		t.Fatalf("%d HEADs after a 429: the client retried on its own", n)
	}
	if h.Want(ref, "pod2", PullSecrets{}) {
		t.Errorf("Want during the Retry-After pause asked the pod to wait")
	}
	res = h.awaitState(t, ref, PullSecrets{}, func(res Result) bool { return res.State == StateResolved })
	heads := s.Times(http.MethodHead, "manifests")
	if len(heads) < 2 || heads[1].Sub(heads[0]) < time.Second {
		t.Fatalf("retry came %v after the 429, want >= Retry-After (1s)", heads[1].Sub(heads[0]))
	}
	// pod was told of the 429 and of the retry; pod2, which came during
	// the pause, of the retry.
	h.awaitTold(t, "pod", 2)
	h.awaitTold(t, "pod2", 1)
}

// TestDedupe: 100 pods want one image at once; one HEAD and one manifest
// GET go out, and all 100 pods are told.
func TestDedupe(t *testing.T) {
	s := registrytest.New(t)
	s.Push(t, "popular:1", registrytest.Index(t, registrytest.Docker, mixedList(registrytest.Docker)...))
	s.AddFault(registrytest.Fault{Match: registrytest.OnKind(http.MethodHead, "manifests"), Times: -1, Delay: 100 * time.Millisecond})
	h := newHarness(t, Config{Registries: []Registry{registryFor(s)}})
	ref := s.Ref("popular:1")
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !h.Want(ref, fmt.Sprintf("ns/pod-%d", i), PullSecrets{}) {
				t.Errorf("Want %d did not ask to wait", i)
			}
		}()
	}
	wg.Wait()
	h.awaitState(t, ref, PullSecrets{}, func(res Result) bool { return res.State == StateResolved })
	if head, get := s.Count(http.MethodHead, "manifests"), s.Count(http.MethodGet, "manifests"); head != 1 || get != 1 {
		t.Errorf("100 Wants made %d HEADs and %d manifest GETs, want 1 and 1", head, get)
	}
	// OnResolved runs once the facts are stored, so Lookup may see them
	// a moment before the waiters are told.
	deadline := time.Now().Add(5 * time.Second)
	for {
		told := 0
		for i := range 100 {
			told += len(h.reportsTo(fmt.Sprintf("ns/pod-%d", i)))
		}
		if told == 100 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of 100 waiters told", told)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestCacheBound: entries never exceed MaxEntries, whatever the mix.
func TestCacheBound(t *testing.T) {
	const max = 16
	s := registrytest.New(t)
	img := registrytest.WindowsImage(t, v17763)
	h := newHarness(t, Config{Registries: []Registry{registryFor(s)}, MaxEntries: max})
	for i := range 40 {
		tag := fmt.Sprintf("many:%d", i)
		s.Push(t, tag, img)
		if res := h.await(t, s.Ref(tag), PullSecrets{}); res.State != StateResolved {
			t.Fatalf("%s: %v", tag, res.Err)
		}
	}
	for i := range 500 {
		h.Want(fmt.Sprintf("not a reference %d", i), "", PullSecrets{})
		h.Want(fmt.Sprintf("elsewhere.example/app:%d", i), "", PullSecrets{})
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.Resolver.mu.RLock()
	defer h.Resolver.mu.RUnlock()
	c := h.cache
	if c.order.Len() > max || len(c.entries) != c.order.Len() {
		t.Fatalf("cache holds %d entries (%d in order), bound %d", len(c.entries), c.order.Len(), max)
	}
	total := 0
	for _, n := range c.counts {
		total += n
	}
	if total != len(c.entries) {
		t.Errorf("per-kind counts sum to %d, entries %d", total, len(c.entries))
	}
	for alias, e := range c.aliases {
		if c.entries[e.key()] != e {
			t.Errorf("alias %q points to an evicted entry", alias)
		}
	}
}

// TestEgressRefusals: references that aim at the host, the cloud metadata
// service or private networks are refused before any connection.
func TestEgressRefusals(t *testing.T) {
	local := registrytest.New(t)
	local.Push(t, "app:1", registrytest.WindowsImage(t, v17763))
	port := local.Host()[strings.LastIndex(local.Host(), ":")+1:]
	byName := "localhost:" + port
	other := registrytest.New(t)

	tests := []struct {
		name       string
		registries []Registry
		ref        string
		// prepare adds faults before the run.
		prepare   func()
		wantClass ErrorClass
		// untouched servers must see no request.
		untouched []*registrytest.Server
	}{
		{name: "not allowlisted", registries: []Registry{{Host: "mcr.microsoft.com"}}, ref: "169.254.169.254/latest/meta-data:1", wantClass: ClassRefused},
		{name: "metadata address under *", registries: []Registry{{Host: "*"}}, ref: "169.254.169.254/latest/meta-data:1", wantClass: ClassRefused},
		{name: "private address under *", registries: []Registry{{Host: "*"}}, ref: "10.1.2.3:5000/app:1", wantClass: ClassRefused},
		{name: "IPv6 loopback under *", registries: []Registry{{Host: "*"}}, ref: "[::1]:" + port + "/app:1", wantClass: ClassRefused},
		{
			name:       "name resolving to loopback, not allowed private",
			registries: []Registry{{Host: byName, Insecure: true}},
			ref:        byName + "/app:1", wantClass: ClassRefused, untouched: []*registrytest.Server{local},
		},
		{
			name:       "plain HTTP to a registry not insecure",
			registries: []Registry{{Host: byName, AllowPrivate: true}},
			ref:        byName + "/app:1", wantClass: ClassRefused, untouched: []*registrytest.Server{local},
		},
		{
			name:       "redirect to a private address not allowed",
			registries: []Registry{{Host: byName, Insecure: true, AllowPrivate: true}},
			ref:        byName + "/app:1",
			prepare: func() {
				local.AddFault(registrytest.Fault{Match: registrytest.OnKind(http.MethodGet, "manifests"), Times: -1, Status: http.StatusTemporaryRedirect,
					Header: http.Header{"Location": {"http://localhost:" + other.Host()[strings.LastIndex(other.Host(), ":")+1:] + "/v2/app/manifests/x"}}})
			},
			wantClass: ClassRefused, untouched: []*registrytest.Server{other},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			local.ClearFaults()
			local.ResetCounts()
			other.ResetCounts()
			if tt.prepare != nil {
				tt.prepare()
			}
			h := newHarness(t, Config{Registries: tt.registries, RequestTimeout: 2 * time.Second, MaxAutoRetries: 1})
			res := h.await(t, tt.ref, PullSecrets{})
			if res.State != StateFailed || res.Class != tt.wantClass {
				t.Fatalf("%s = %v %v %v, want %v", tt.ref, res.State, res.Class, res.Err, tt.wantClass)
			}
			for _, s := range tt.untouched {
				if n := s.Total(); n != 0 {
					t.Errorf("server %s saw %d requests", s.Host(), n)
				}
			}
		})
	}
	// The same loopback registry, allowed private: resolves.
	h := newHarness(t, Config{Registries: []Registry{{Host: byName, Insecure: true, AllowPrivate: true}}})
	local.ClearFaults()
	if res := h.await(t, byName+"/app:1", PullSecrets{}); res.State != StateResolved {
		t.Fatalf("allowed private: %v %v", res.State, res.Err)
	}
}

// TestTagMoves: a tag re-pushed with another build is seen after the tag
// TTL; until then, and while the refresh runs, the old facts are served.
// A refresh that finds the same digest costs one HEAD and no GET.
func TestTagMoves(t *testing.T) {
	s := registrytest.New(t)
	s.Push(t, "app:latest", registrytest.WindowsImage(t, v17763))
	clk := clocktesting.NewFakePassiveClock(time.Now())
	h := newHarness(t, Config{Registries: []Registry{registryFor(s)}, TagTTL: time.Minute, Clock: clk})
	ref := s.Ref("app:latest")
	first := h.await(t, ref, PullSecrets{})
	if first.State != StateResolved || first.Platforms[0] != win17763 {
		t.Fatalf("first: %+v", first)
	}

	// Same digest after the TTL: HEAD only.
	clk.SetTime(clk.Now().Add(2 * time.Minute))
	if res, _ := h.Lookup(ref, PullSecrets{}); !res.Stale {
		t.Fatalf("facts past the TTL not marked stale")
	}
	gets := s.Count(http.MethodGet, "manifests")
	if h.Want(ref, "pod", PullSecrets{}) {
		t.Errorf("Want on stale facts asked the pod to wait")
	}
	h.awaitState(t, ref, PullSecrets{}, func(res Result) bool { return !res.Stale })
	if n := s.Count(http.MethodGet, "manifests"); n != gets {
		t.Errorf("refresh of an unchanged tag made %d manifest GETs", n-gets)
	}

	// Re-pushed with another build: served old until the TTL, new after.
	s.Push(t, "app:latest", registrytest.WindowsImage(t, v20348))
	if res, _ := h.Lookup(ref, PullSecrets{}); res.Platforms[0] != win17763 || res.Stale {
		t.Fatalf("before the TTL: %+v", res)
	}
	clk.SetTime(clk.Now().Add(2 * time.Minute))
	h.Want(ref, "", PullSecrets{})
	res := h.awaitState(t, ref, PullSecrets{}, func(res Result) bool { return res.Digest != first.Digest })
	if res.Platforms[0] != win20348 || res.Stale {
		t.Fatalf("after the TTL: %+v", res)
	}
}

// TestLookupHitAllocatesNothing: Lookup runs in PreEnqueue under the
// scheduling queue's lock.
func TestLookupHitAllocatesNothing(t *testing.T) {
	r, ref := resolverWithHit(t)
	if allocs := testing.AllocsPerRun(1000, func() {
		if res, ok := r.Lookup(ref, PullSecrets{}); !ok || res.State != StateResolved {
			t.Fatal("miss")
		}
	}); allocs != 0 {
		t.Fatalf("Lookup hit allocates %v times", allocs)
	}
}

func BenchmarkLookupHit(b *testing.B) {
	r, ref := resolverWithHit(b)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, ok := r.Lookup(ref, PullSecrets{}); !ok {
				b.Fatal("miss")
			}
		}
	})
}

// resolverWithHit is a resolver whose cache holds one resolved tag.
func resolverWithHit(tb testing.TB) (*Resolver, string) {
	r, err := New(Config{Registries: []Registry{{Host: "mcr.microsoft.com"}}})
	if err != nil {
		tb.Fatal(err)
	}
	const ref = "mcr.microsoft.com/dotnet/runtime:7.0"
	ir, err := parseRef(ref)
	if err != nil {
		tb.Fatal(err)
	}
	e := &entry{ref: ir, res: Result{State: StateResolved, Platforms: []windows.Platform{linuxAMD64, win17763, win20348}, Digest: "sha256:0"}, freshUntil: time.Now().Add(time.Hour)}
	r.mu.Lock()
	r.cache.insert(e)
	r.cache.addAlias(e, ref)
	r.mu.Unlock()
	return r, ref
}

// TestHeadUnsupported: a registry that answers HEAD with 405 is read with
// a GET of the tag.
func TestHeadUnsupported(t *testing.T) {
	s := registrytest.New(t)
	s.Push(t, "old:1", registrytest.WindowsImage(t, v20348))
	s.AddFault(registrytest.Fault{Match: registrytest.OnKind(http.MethodHead, "manifests"), Times: -1, Status: http.StatusMethodNotAllowed})
	h := newHarness(t, Config{Registries: []Registry{registryFor(s)}})
	res := h.await(t, s.Ref("old:1"), PullSecrets{})
	if res.State != StateResolved || res.Platforms[0] != win20348 || !strings.HasPrefix(res.Digest, "sha256:") {
		t.Fatalf("%+v", res)
	}
}

// TestStaleFactsOutliveOutage: when a tag's refresh fails, its old facts
// are still served, and no pod is held for it.
func TestStaleFactsOutliveOutage(t *testing.T) {
	s := registrytest.New(t)
	s.Push(t, "app:1", registrytest.WindowsImage(t, v17763))
	clk := clocktesting.NewFakePassiveClock(time.Now())
	h := newHarness(t, Config{Registries: []Registry{registryFor(s)}, TagTTL: time.Minute, NegativeTTL: time.Minute, Clock: clk})
	ref := s.Ref("app:1")
	if res := h.await(t, ref, PullSecrets{}); res.State != StateResolved {
		t.Fatalf("%+v", res)
	}
	s.AddFault(registrytest.Fault{Times: -1, Status: http.StatusServiceUnavailable})
	clk.SetTime(clk.Now().Add(2 * time.Minute))
	before := s.Total()
	if h.Want(ref, "pod", PullSecrets{}) {
		t.Fatalf("Want held a pod whose image has stale facts")
	}
	// The failed refresh moves the next one a negative TTL away.
	res := h.awaitState(t, ref, PullSecrets{}, func(res Result) bool { return !res.Stale })
	if res.State != StateResolved || res.Platforms[0] != win17763 {
		t.Fatalf("after a failed refresh: %+v", res)
	}
	if s.Total() == before {
		t.Fatalf("no refresh was tried")
	}
	if h.Want(ref, "pod", PullSecrets{}) {
		t.Fatalf("Want held a pod after a failed refresh")
	}
}
