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
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
)

// TestRotatedSecretFactsDropped: facts obtained with a pull secret are
// served to its scope without asking anyone. Once the secret changes
// (a new password, deleted), the first run of the scope past the secret
// cache's TTL reads it again, and every fact of the scope obtained with
// the old secret goes, those of images nobody asked about since
// included, by tag and by digest: each is resolved again with the secret
// as it is now. A secret read again unchanged keeps them.
func TestRotatedSecretFactsDropped(t *testing.T) {
	const newPassword = "rotated-password"
	tests := []struct {
		name string
		// rotate changes the secret (and the registry's users).
		rotate    func(store *secretStore, s *registrytest.Server)
		wantState State
		wantClass ErrorClass
		// wantKept: nothing changed, and the facts stay.
		wantKept bool
	}{
		{
			name: "password rotated, the old one revoked",
			rotate: func(store *secretStore, s *registrytest.Server) {
				store.put(rotationSecret(s.Host(), newPassword))
				s.RequireBearer(map[string]string{goodUser: newPassword})
			},
			wantState: StateResolved,
		},
		{
			name: "secret deleted",
			rotate: func(store *secretStore, _ *registrytest.Server) {
				store.remove("shop", "regcred")
			},
			wantState: StateFailed, wantClass: ClassUnauthorized,
		},
		{
			name: "password changed to one the registry refuses",
			rotate: func(store *secretStore, s *registrytest.Server) {
				store.put(rotationSecret(s.Host(), wrongPassword))
			},
			wantState: StateFailed, wantClass: ClassUnauthorized,
		},
		{
			name:      "secret read again unchanged",
			rotate:    func(*secretStore, *registrytest.Server) {},
			wantState: StateResolved, wantKept: true,
		},
	}
	pull := PullSecrets{Namespace: "shop", Names: []string{"regcred"}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := registrytest.New(t, registrytest.WithTLS())
			s.Push(t, "contoso/app:1", registrytest.WindowsImage(t, v17763))
			s.Push(t, "contoso/web:1", registrytest.WindowsImage(t, v20348))
			s.RequireBearer(map[string]string{goodUser: goodPassword})
			store := &secretStore{secrets: map[string]*v1.Secret{}}
			store.put(rotationSecret(s.Host(), goodPassword))
			clk := clocktesting.NewFakePassiveClock(time.Now())
			h := newHarness(t, Config{Registries: []Registry{registryFor(s)}, PodPullSecrets: true, GetSecret: store.get, Clock: clk})
			app, web := s.Ref("contoso/app:1"), s.Ref("contoso/web:1")
			for _, ref := range []string{app, web} {
				if res := h.await(t, ref, pull); res.State != StateResolved {
					t.Fatalf("%s with the secret: %v %v", ref, res.State, res.Err)
				}
			}
			webRes, _ := h.Lookup(web, pull)
			webDigest := s.Ref("contoso/web@" + webRes.Digest)
			if res, _ := h.Lookup(webDigest, pull); res.State != StateResolved {
				t.Fatalf("web by digest: %v", res.State)
			}

			tt.rotate(store, s)
			clk.SetTime(clk.Now().Add(DefaultTagTTL + secretTTL))
			heads := s.Count(http.MethodHead, "manifests")
			// The stale facts of app are refreshed; its run reads the
			// secret again.
			if h.Want(app, "", pull) {
				t.Fatalf("Want held a pod for stale facts")
			}
			webGone := func() bool {
				res, ok := h.Lookup(web, pull)
				return !ok || res.State != StateResolved
			}
			if tt.wantKept {
				// The refresh's HEAD comes after its secret read.
				awaitTrue(t, "the refresh of app", func() bool { return s.Count(http.MethodHead, "manifests") > heads })
				if webGone() {
					t.Errorf("facts of web dropped though the secret did not change")
				}
				return
			}
			awaitTrue(t, "web's facts dropped", webGone)
			if res, ok := h.Lookup(webDigest, pull); ok && res.State == StateResolved {
				t.Errorf("web by digest still served from the old secret")
			}
			// By digest first: the run of the tag would store the digest's facts.
			for _, ref := range []string{app, webDigest, web} {
				asked := s.Total()
				h.Want(ref, "", pull)
				res := h.awaitState(t, ref, pull, func(res Result) bool { return res.State != StatePending })
				if res.State != tt.wantState || (res.State == StateFailed && res.Class != tt.wantClass) {
					t.Errorf("%s after the change: %v %v %v, want %v %v", ref, res.State, res.Class, res.Err, tt.wantState, tt.wantClass)
				}
				if ref != app && s.Total() == asked {
					t.Errorf("%s: the registry was not asked again", ref)
				}
			}
		})
	}
}

func rotationSecret(host, password string) *v1.Secret {
	return &v1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "regcred", UID: "uid-regcred"},
		Type:       v1.SecretTypeDockerConfigJson,
		Data:       map[string][]byte{v1.DockerConfigJsonKey: registrytest.DockerConfigJSON(goodUser, password, host)},
	}
}

func (s *secretStore) put(secret *v1.Secret) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.secrets[secret.Namespace+"/"+secret.Name] = secret
}

func (s *secretStore) remove(namespace, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.secrets, namespace+"/"+name)
}

// awaitTrue waits until cond holds; the deadline is a safety net only.
func awaitTrue(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after 15s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestSecretChangedDuringRun: a run reads the pull secret, and while its
// request is under way another run of the scope reads the secret again
// and finds it changed. The first run's facts, obtained with the old
// secret, are not stored: it fails, is retried with the secret as it is
// now, and the registry refuses that one.
func TestSecretChangedDuringRun(t *testing.T) {
	backend := registrytest.New(t)
	backend.Push(t, "contoso/app:1", registrytest.WindowsImage(t, v17763))
	backend.Push(t, "contoso/web:1", registrytest.WindowsImage(t, v20348))
	backend.RequireBearer(map[string]string{goodUser: goodPassword})
	held, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	front := newFront(t, backend, rewrite{
		match: func(r *http.Request) bool {
			return r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v2/contoso/app/manifests/sha256:")
		},
		modify: func(string, *http.Response) {
			once.Do(func() {
				close(held)
				<-release
			})
		},
	})
	store := &secretStore{secrets: map[string]*v1.Secret{}}
	store.put(rotationSecret(front, goodPassword))
	clk := clocktesting.NewFakePassiveClock(time.Now())
	h := newHarness(t, Config{
		Registries: []Registry{{Host: front, AllowPrivate: true, Insecure: true}}, RequestTimeout: 10 * time.Second,
		PodPullSecrets: true, GetSecret: store.get, Clock: clk,
	})
	pull := PullSecrets{Namespace: "shop", Names: []string{"regcred"}}
	app, web := front+"/contoso/app:1", front+"/contoso/web:1"

	h.Want(app, "", pull)
	<-held // app's run has read the secret, and waits for its manifest
	store.put(rotationSecret(front, wrongPassword))
	clk.SetTime(clk.Now().Add(secretTTL + time.Second))
	if res := h.await(t, web, pull); res.State != StateFailed || res.Class != ClassUnauthorized {
		t.Fatalf("web with the changed secret: %v %v %v", res.State, res.Class, res.Err)
	}
	close(release)
	res := h.awaitState(t, app, pull, func(res Result) bool {
		return res.State == StateResolved || res.State == StateFailed && res.Class != ClassUnavailable
	})
	if res.State != StateFailed || res.Class != ClassUnauthorized {
		t.Errorf("app, whose run read the secret before it changed: %v %v %v, want unauthorized", res.State, res.Class, res.Err)
	}
}
