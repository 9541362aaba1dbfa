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
	"fmt"
	"os"
	"path/filepath"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
)

// scopedStore serves pull secrets of two namespaces: in "shop", "good"
// holds the registry's password and "stale" a wrong one; in "other",
// "good" too holds a wrong one (a secret of the same name is not the same
// credential).
func scopedStore(host string) *secretStore {
	mk := func(ns, name, password string) *v1.Secret {
		return &v1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Type:       v1.SecretTypeDockerConfigJson,
			Data:       map[string][]byte{v1.DockerConfigJsonKey: registrytest.DockerConfigJSON(goodUser, password, host)},
		}
	}
	return &secretStore{secrets: map[string]*v1.Secret{
		"shop/good":  mk("shop", "good", goodPassword),
		"shop/stale": mk("shop", "stale", wrongPassword),
		"other/good": mk("other", "good", wrongPassword),
	}}
}

var (
	shopGood   = PullSecrets{Namespace: "shop", Names: []string{"good"}}
	shopNone   = PullSecrets{Namespace: "shop"}
	shopStale  = PullSecrets{Namespace: "shop", Names: []string{"stale"}}
	otherNone  = PullSecrets{Namespace: "other"}
	otherGood  = PullSecrets{Namespace: "other", Names: []string{"good"}}
	shopGoodTw = PullSecrets{Namespace: "shop", Names: []string{"good", "good"}}
)

// TestFactsScopes: who sees the facts that one pod's resolution
// obtained. Facts obtained anonymously or with the static docker config
// are everyone's; facts obtained with a pod's pull secret are seen only by
// pods of the same namespace naming the same secrets, under the tag and
// under the digest; Known shows each pod the same facts. Every other pod
// is resolved with its own credentials, so the registry is asked, and
// refuses it.
func TestFactsScopes(t *testing.T) {
	type viewer struct {
		name string
		pull PullSecrets
		// digest: the viewer names the image by repo@digest.
		digest bool
		sees   bool
	}
	everyone := func(digest bool) []viewer {
		return []viewer{
			{name: "same namespace, same secret", pull: shopGood, digest: digest, sees: true},
			{name: "same secret named twice", pull: shopGoodTw, digest: digest, sees: true},
			{name: "same namespace, no secret", pull: shopNone, digest: digest, sees: true},
			{name: "same namespace, wrong secret", pull: shopStale, digest: digest, sees: true},
			{name: "other namespace, no secret", pull: otherNone, digest: digest, sees: true},
			{name: "other namespace, same secret name", pull: otherGood, digest: digest, sees: true},
		}
	}
	onlyOwn := func(digest bool) []viewer {
		return []viewer{
			{name: "same namespace, same secret", pull: shopGood, digest: digest, sees: true},
			{name: "same secret named twice", pull: shopGoodTw, digest: digest, sees: true},
			{name: "same namespace, no secret", pull: shopNone, digest: digest},
			{name: "same namespace, wrong secret", pull: shopStale, digest: digest},
			{name: "other namespace, no secret", pull: otherNone, digest: digest},
			{name: "other namespace, same secret name", pull: otherGood, digest: digest},
		}
	}
	tests := []struct {
		name string
		// auth: the registry requires credentials; static: the scheduler's
		// docker config file holds them.
		auth, static bool
		// filler is the pod whose resolution fills the cache.
		filler  PullSecrets
		viewers []viewer
	}{
		{name: "anonymous facts", filler: shopNone, viewers: append(everyone(false), everyone(true)...)},
		{name: "static docker config facts", auth: true, static: true, filler: otherNone, viewers: append(everyone(false), everyone(true)...)},
		{name: "pull secret facts", auth: true, filler: shopGood, viewers: onlyOwn(false)},
		{name: "pull secret facts, digest copy", auth: true, filler: shopGood, viewers: onlyOwn(true)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, v := range tt.viewers {
				t.Run(v.name, func(t *testing.T) {
					s := registrytest.New(t, registrytest.WithTLS())
					s.Push(t, "contoso/orders-api:1.4.2", registrytest.WindowsImage(t, v17763))
					cfg := Config{Registries: []Registry{registryFor(s)}, PodPullSecrets: true, GetSecret: scopedStore(s.Host()).get}
					if tt.auth {
						s.RequireBearer(map[string]string{goodUser: goodPassword})
					}
					if tt.static {
						cfg.DockerConfigFile = filepath.Join(t.TempDir(), "config.json")
						if err := os.WriteFile(cfg.DockerConfigFile, registrytest.DockerConfigJSON(goodUser, goodPassword, s.Host()), 0o600); err != nil {
							t.Fatal(err)
						}
					}
					h := newHarness(t, cfg)
					tag := s.Ref("contoso/orders-api:1.4.2")
					filled := h.await(t, tag, tt.filler)
					if filled.State != StateResolved {
						t.Fatalf("the pod that fills the cache: %v %v", filled.State, filled.Err)
					}
					ref := tag
					if v.digest {
						ref = s.Ref("contoso/orders-api@" + filled.Digest)
					}
					asked := s.Total()
					res, known := h.Lookup(ref, v.pull)
					seen := known && res.State == StateResolved
					if seen != v.sees {
						t.Fatalf("Lookup(%s, %+v) = %v %v, want seen %v", ref, v.pull, known, res.State, v.sees)
					}
					// Known, for pods out of scope, sees what Lookup sees.
					if _, ok := h.Known(ref, v.pull); ok != v.sees {
						t.Errorf("Known(%s, %+v) = %v, want %v", ref, v.pull, ok, v.sees)
					}
					if v.sees {
						if h.Want(ref, "viewer", v.pull) {
							t.Errorf("Want queued a run for facts the pod may see")
						}
						if n := s.Total() - asked; n != 0 {
							t.Errorf("the registry was asked %d times for facts the pod may see", n)
						}
						return
					}
					if !h.Want(ref, "viewer", v.pull) {
						t.Fatalf("Want did not queue a run with the pod's own credentials")
					}
					res = h.awaitState(t, ref, v.pull, func(res Result) bool { return res.State != StatePending })
					if res.State != StateFailed || res.Class != ClassUnauthorized {
						t.Errorf("resolved with its own credentials: %v %v %v, want unauthorized", res.State, res.Class, res.Err)
					}
					if s.Total() == asked {
						t.Errorf("the registry was not asked for the pod's own credentials")
					}
					// The pod that filled the cache still sees its facts.
					if res, _ := h.Lookup(tag, tt.filler); res.State != StateResolved {
						t.Errorf("the filler's facts are gone: %v", res.State)
					}
				})
			}
		})
	}
}

// TestRunNeverBorrows: two pods wait on one private image at once, one
// with the registry's secret and one without. Each run uses its own
// pod's credentials: the pod without fails as unauthorized.
func TestRunNeverBorrows(t *testing.T) {
	s := registrytest.New(t, registrytest.WithTLS())
	s.Push(t, "contoso/orders-api:1.4.2", registrytest.WindowsImage(t, v17763))
	s.RequireBearer(map[string]string{goodUser: goodPassword})
	h := newHarness(t, Config{Registries: []Registry{registryFor(s)}, PodPullSecrets: true, GetSecret: scopedStore(s.Host()).get})
	ref := s.Ref("contoso/orders-api:1.4.2")
	for _, w := range []struct {
		waiter string
		pull   PullSecrets
	}{{"other/b", otherNone}, {"shop/a", shopGood}, {"other/c", otherGood}} {
		if !h.Want(ref, w.waiter, w.pull) {
			t.Fatalf("Want(%s) queued nothing", w.waiter)
		}
	}
	h.awaitTold(t, "shop/a", 1)
	h.awaitTold(t, "other/b", 1)
	h.awaitTold(t, "other/c", 1)
	if res, _ := h.Lookup(ref, shopGood); res.State != StateResolved {
		t.Errorf("the pod with the secret: %v %v", res.State, res.Err)
	}
	for _, p := range []PullSecrets{otherNone, otherGood} {
		if res, _ := h.Lookup(ref, p); res.State != StateFailed || res.Class != ClassUnauthorized {
			t.Errorf("%+v: %v %v, want unauthorized", p, res.State, res.Class)
		}
	}
}

// TestScopesPerImageBounded: pods naming ever new secret sets for one
// image replace each other's scoped entries; the image never holds more
// than maxScopesPerImage of them, and another image's shared facts stay.
func TestScopesPerImageBounded(t *testing.T) {
	s := registrytest.New(t, registrytest.WithTLS())
	s.Push(t, "contoso/orders-api:1.4.2", registrytest.WindowsImage(t, v17763))
	s.Push(t, "contoso/public:1", registrytest.WindowsImage(t, v17763))
	store := scopedStore(s.Host())
	h := newHarness(t, Config{Registries: []Registry{registryFor(s)}, PodPullSecrets: true, GetSecret: store.get, MaxEntries: 4 * maxScopesPerImage})
	public := s.Ref("contoso/public:1")
	if res := h.await(t, public, PullSecrets{}); res.State != StateResolved {
		t.Fatalf("%v %v", res.State, res.Err)
	}
	s.RequireBearer(map[string]string{goodUser: goodPassword})
	ref := s.Ref("contoso/orders-api:1.4.2")
	for i := range 3 * maxScopesPerImage {
		h.await(t, ref, PullSecrets{Namespace: fmt.Sprintf("tenant-%d", i), Names: []string{"absent"}})
	}
	h.Resolver.mu.RLock()
	key := h.cache.aliases[entryKey{ref, "tenant-0/absent"}]
	n := len(h.cache.scoped[s.Ref("contoso/orders-api:1.4.2")])
	h.Resolver.mu.RUnlock()
	if key != nil {
		t.Errorf("the oldest scope is still cached")
	}
	if n == 0 || n > maxScopesPerImage {
		t.Errorf("%d scoped entries of one image, bound %d", n, maxScopesPerImage)
	}
	asked := s.Total()
	if res, ok := h.Lookup(public, PullSecrets{}); !ok || res.State != StateResolved {
		t.Errorf("shared facts of another image evicted: %v %v", ok, res.State)
	}
	if s.Total() != asked {
		t.Errorf("registry asked")
	}
}
