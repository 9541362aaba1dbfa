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
	"strings"
	"testing"
	"time"

	"k8s.io/component-base/metrics/testutil"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
)

// TestKnown: Known tells what is resolved and fresh, and nothing else; it
// never asks a registry and counts no cache lookup.
func TestKnown(t *testing.T) {
	s := registrytest.New(t)
	s.Push(t, "app:1", registrytest.WindowsImage(t, v17763))
	clk := clocktesting.NewFakePassiveClock(time.Now())
	h := newHarness(t, Config{Registries: []Registry{registryFor(s)}, TagTTL: time.Minute, NegativeTTL: time.Minute, Clock: clk})
	ref, broken := s.Ref("app:1"), s.Ref("missing:1") // missing: never pushed

	if _, ok := h.Known(ref, PullSecrets{}); ok {
		t.Fatal("Known before anything was resolved")
	}
	if n := s.Total(); n != 0 {
		t.Fatalf("Known asked the registry: %d request(s)", n)
	}

	res := h.await(t, ref, PullSecrets{})
	if res.State != StateResolved {
		t.Fatalf("%+v", res)
	}
	if failed := h.await(t, broken, PullSecrets{}); failed.State != StateFailed {
		t.Fatalf("broken: %+v", failed)
	}
	asked := s.Total()
	hits, _ := testutil.GetCounterMetricValue(cacheLookups.WithLabelValues("hit"))
	misses, _ := testutil.GetCounterMetricValue(cacheLookups.WithLabelValues("miss"))

	got, ok := h.Known(ref, PullSecrets{})
	if !ok || got.State != StateResolved || len(got.Platforms) != 1 || got.Platforms[0] != win17763 {
		t.Fatalf("Known(%s) = %+v, %v; want the resolved facts", ref, got, ok)
	}
	if _, ok := h.Known(broken, PullSecrets{}); ok {
		t.Error("Known tells a failed image")
	}
	byDigest := strings.TrimSuffix(ref, ":1") + "@" + res.Digest
	if _, ok := h.Known(byDigest, PullSecrets{}); !ok {
		t.Errorf("Known(%s) = false, want the digest's facts", byDigest)
	}

	// Past tagTTL the tag's facts are stale: Lookup still serves them,
	// Known does not; a digest's facts never go stale.
	clk.SetTime(clk.Now().Add(2 * time.Minute))
	if res, ok := h.Lookup(ref, PullSecrets{}); !ok || !res.Stale {
		t.Fatalf("Lookup past tagTTL = %+v, %v; want stale facts", res, ok)
	}
	if _, ok := h.Known(ref, PullSecrets{}); ok {
		t.Error("Known tells a tag's facts past tagTTL")
	}
	if _, ok := h.Known(byDigest, PullSecrets{}); !ok {
		t.Error("Known forgets a digest's facts past tagTTL")
	}

	if n := s.Total() - asked; n != 0 {
		t.Errorf("Known asked the registry: %d request(s)", n)
	}
	// One hit counted: the stale Lookup above, not Known.
	if got, _ := testutil.GetCounterMetricValue(cacheLookups.WithLabelValues("hit")); got != hits+1 {
		t.Errorf("cache hits went from %v to %v, want one more (Lookup's alone)", hits, got)
	}
	if got, _ := testutil.GetCounterMetricValue(cacheLookups.WithLabelValues("miss")); got != misses {
		t.Errorf("cache misses went from %v to %v: Known counted", misses, got)
	}
}

// TestKnownAllocatesNothing: for a pod without pull secrets, Known
// allocates neither for an image it knows nor for one it does not.
func TestKnownAllocatesNothing(t *testing.T) {
	r, ref := resolverWithHit(t)
	for _, c := range []struct {
		ref  string
		want bool
	}{{ref, true}, {"mcr.microsoft.com/unknown:1", false}} {
		if allocs := testing.AllocsPerRun(1000, func() {
			if _, ok := r.Known(c.ref, PullSecrets{Namespace: "default"}); ok != c.want {
				t.Fatalf("Known(%s) = %v, want %v", c.ref, ok, c.want)
			}
		}); allocs != 0 {
			t.Errorf("Known(%s) allocates %v times", c.ref, allocs)
		}
	}
}
