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
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	clocktesting "k8s.io/utils/clock/testing"
)

// countingAPI is a fake API server holding pull secrets, read through
// its clientset; it counts the Secret GETs and the most under way at
// once, and holds each GET until release is closed. (The fake runs its
// reactors under one lock, so the holding is done around the call.)
type countingAPI struct {
	client          *fake.Clientset
	gets, now, most atomic.Int32
	release         chan struct{}
}

func newCountingAPI(secrets ...runtime.Object) *countingAPI {
	return &countingAPI{client: fake.NewClientset(secrets...), release: make(chan struct{})}
}

func (a *countingAPI) get(ctx context.Context, namespace, name string) (*v1.Secret, error) {
	a.gets.Add(1)
	n := a.now.Add(1)
	for m := a.most.Load(); n > m && !a.most.CompareAndSwap(m, n); m = a.most.Load() {
	}
	<-a.release
	a.now.Add(-1)
	return a.client.CoreV1().Secrets(namespace).Get(ctx, name, metav1.GetOptions{})
}

// getsRecorded is how many Secret GETs the fake API server served.
func (a *countingAPI) getsRecorded() int {
	n := 0
	for _, act := range a.client.Actions() {
		if act.Matches("get", "secrets") {
			n++
		}
	}
	return n
}

func pullSecret(ns, name string) *v1.Secret {
	return &v1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Type:       v1.SecretTypeDockerConfigJson,
		Data:       map[string][]byte{v1.DockerConfigJsonKey: []byte(`{"auths":{}}`), "unrelated": make([]byte, 1<<10)},
	}
}

// TestSecretReadsShared: concurrent reads of one secret share one GET;
// later reads within the TTL are served from the cache, absent secrets
// too; past the TTL the secret is read again; GETs of many secrets are
// never more than maxSecretReads at once.
func TestSecretReadsShared(t *testing.T) {
	api := newCountingAPI(pullSecret("shop", "regcred"))
	clk := clocktesting.NewFakePassiveClock(time.Now())
	r := newSecretReader(api.get, clk.Now)
	ctx := context.Background()

	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			s, err := r.read(ctx, "shop", "regcred")
			if err != nil || s.Data[v1.DockerConfigJsonKey] == nil {
				t.Errorf("read: %v %v", s, err)
			}
			if _, kept := s.Data["unrelated"]; kept {
				t.Errorf("the cache keeps more of the Secret than its registry credentials")
			}
		})
	}
	for api.gets.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // let the other readers join the flight
	close(api.release)
	wg.Wait()
	if n := api.gets.Load(); n != 1 {
		t.Errorf("50 concurrent reads of one secret made %d GETs, want 1", n)
	}
	for range 10 {
		if _, err := r.read(ctx, "shop", "regcred"); err != nil {
			t.Fatal(err)
		}
		if _, err := r.read(ctx, "shop", "absent"); !apierrors.IsNotFound(err) {
			t.Fatalf("absent secret: %v", err)
		}
	}
	if n := api.gets.Load(); n != 2 {
		t.Errorf("%d GETs after 10 more reads of a cached and an absent secret, want 2", n)
	}
	clk.SetTime(clk.Now().Add(secretTTL + time.Second))
	if _, err := r.read(ctx, "shop", "regcred"); err != nil {
		t.Fatal(err)
	}
	if n := api.gets.Load(); n != 3 {
		t.Errorf("%d GETs after the TTL, want 3 (read again)", n)
	}
	if n := api.getsRecorded(); n != 3 {
		t.Errorf("the API server served %d GETs, want 3", n)
	}
}

// TestSecretReadsBounded: GETs of many secrets are at most maxSecretReads
// at once, and the cache keeps at most maxCachedSecrets.
func TestSecretReadsBounded(t *testing.T) {
	var objs []runtime.Object
	const n = 40
	for i := range n {
		objs = append(objs, pullSecret("shop", fmt.Sprintf("s%d", i)))
	}
	api := newCountingAPI(objs...)
	r := newSecretReader(api.get, time.Now)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { _, _ = r.read(context.Background(), "shop", fmt.Sprintf("s%d", i)) })
	}
	for api.gets.Load() < maxSecretReads {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	if m := api.most.Load(); m > maxSecretReads {
		t.Errorf("%d GETs at once, bound %d", m, maxSecretReads)
	}
	close(api.release)
	wg.Wait()
	if m := api.most.Load(); m > maxSecretReads {
		t.Errorf("%d GETs at once, bound %d", m, maxSecretReads)
	}
	if g := api.gets.Load(); g != n {
		t.Errorf("%d GETs for %d secrets", g, n)
	}
	for i := range 2 * maxCachedSecrets {
		r.store(secretKey{"shop", fmt.Sprintf("x%d", i)}, cachedSecret{secret: credentialsOnly(pullSecret("shop", "x"))})
	}
	if len(r.cached) > maxCachedSecrets {
		t.Errorf("%d secrets cached, bound %d", len(r.cached), maxCachedSecrets)
	}
}

// TestPullSecretGetsPerRun: pods of one namespace naming one secret, for
// many images at once, cost one GET of it, not one per image or pod.
func TestPullSecretGetsPerRun(t *testing.T) {
	api := newCountingAPI(pullSecret("shop", "regcred"))
	close(api.release)
	creds, err := newCredentials("", true, api.get, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Go(func() {
			creds.forImage(context.Background(), fmt.Sprintf("registry.example/app-%d", i), PullSecrets{Namespace: "shop", Names: []string{"regcred", "regcred"}})
		})
	}
	wg.Wait()
	if g := api.gets.Load(); g != 1 {
		t.Errorf("%d GETs of one pull secret for 100 images, want 1", g)
	}
}

// TestSecretChangesNoticed: each read of a Secret past the TTL is
// compared with the one before: new credentials, a Secret deleted,
// recreated or no longer readable are told as changes; the same
// credentials (other labels included) and an API server that did not
// answer are not. A Secret read for the first time is told too: the
// reader cannot know what was obtained with it before; one absent from
// the start is not, nothing was.
func TestSecretChangesNoticed(t *testing.T) {
	gone := apierrors.NewNotFound(schema.GroupResource{Resource: "secrets"}, "regcred")
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "regcred", errors.New("no"))
	unavailable := apierrors.NewServiceUnavailable("etcd")
	withPassword := func(password string, labels map[string]string) *v1.Secret {
		s := rotationSecret("registry.example", password)
		s.Labels = labels
		return s
	}
	steps := []struct {
		name       string
		secret     *v1.Secret
		err        error
		wantChange bool
	}{
		{name: "absent before it was ever read", err: gone},
		{name: "first read", secret: withPassword("one", nil), wantChange: true},
		{name: "read again unchanged", secret: withPassword("one", nil)},
		{name: "only a label changed", secret: withPassword("one", map[string]string{"team": "a"})},
		{name: "password changed", secret: withPassword("two", nil), wantChange: true},
		{name: "API server unavailable", err: unavailable},
		{name: "unchanged after the outage", secret: withPassword("two", nil)},
		{name: "deleted", err: gone, wantChange: true},
		{name: "still deleted", err: gone},
		{name: "recreated", secret: withPassword("two", nil), wantChange: true},
		{name: "no longer readable", err: forbidden, wantChange: true},
	}
	var (
		secret  *v1.Secret
		getErr  error
		changes []string
	)
	clk := clocktesting.NewFakePassiveClock(time.Now())
	r := newSecretReader(func(context.Context, string, string) (*v1.Secret, error) {
		if getErr != nil {
			return nil, getErr
		}
		return secret.DeepCopy(), nil
	}, clk.Now)
	r.changed = func(namespace, name string) { changes = append(changes, namespace+"/"+name) }
	for _, step := range steps {
		secret, getErr = step.secret, step.err
		clk.SetTime(clk.Now().Add(secretTTL + time.Second))
		changes = nil
		_, version, err := r.readVersion(context.Background(), "shop", "regcred")
		if (err != nil) != (step.err != nil) {
			t.Fatalf("%s: read error %v, want %v", step.name, err, step.err)
		}
		if got := len(changes) > 0; got != step.wantChange {
			t.Errorf("%s: change told %v, want %v", step.name, changes, step.wantChange)
		}
		if version != "" && !r.current("shop", "regcred", version) {
			t.Errorf("%s: the version read is not current", step.name)
		}
	}
}
