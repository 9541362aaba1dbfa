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
	"sync"
	"testing"
	"time"

	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
)

// BenchmarkTenantIsolation: tenant A creates 500 pods of 20 distinct tags
// each (10,000 images) against a registry that answers every request after
// 200 ms; tenant B's 20 pods, one distinct image each, on the same
// registry, then want theirs. It reports how long B's images took beside
// A's backlog, against B alone (goal: at most 2x; B's fair share of the
// registry's PerRegistry slots is half of them).
func BenchmarkTenantIsolation(b *testing.B) {
	const (
		podsA, tagsPerPodA = 500, 20
		podsB              = 20
		latency            = 200 * time.Millisecond
	)
	s := registrytest.New(b)
	img := registrytest.WindowsImage(b, v17763)
	for i := range podsA * tagsPerPodA {
		s.Push(b, fmt.Sprintf("tenant-a/app:%d", i), img)
	}
	for i := range podsB {
		s.Push(b, fmt.Sprintf("tenant-b/app%d:1", i), img)
	}
	s.AddFault(registrytest.Fault{Times: -1, Delay: latency})
	// resolveB returns how long B's images take to resolve, after A's
	// pods (if any) have wanted theirs.
	resolveB := func(b *testing.B, withA bool) time.Duration {
		r, err := New(Config{Registries: []Registry{registryFor(s)}, MaxEntries: 4 * podsA * tagsPerPodA})
		if err != nil {
			b.Fatal(err)
		}
		var wg sync.WaitGroup
		wg.Add(podsB)
		r.OnResolved(func(_ string, waiters []string) {
			for _, w := range waiters {
				if len(w) > 9 && w[:9] == "tenant-b/" {
					wg.Done()
				}
			}
		})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		r.Start(ctx)
		if withA {
			for pod := range podsA {
				for tag := range tagsPerPodA {
					r.Want(s.Ref(fmt.Sprintf("tenant-a/app:%d", pod*tagsPerPodA+tag)), fmt.Sprintf("tenant-a/pod-%d", pod), PullSecrets{Namespace: "tenant-a"})
				}
			}
		}
		start := time.Now()
		for i := range podsB {
			if !r.Want(s.Ref(fmt.Sprintf("tenant-b/app%d:1", i)), fmt.Sprintf("tenant-b/pod-%d", i), PullSecrets{Namespace: "tenant-b"}) {
				b.Fatalf("tenant B's image %d not queued", i)
			}
		}
		wg.Wait()
		took := time.Since(start)
		for i := range podsB {
			if res, _ := r.Lookup(s.Ref(fmt.Sprintf("tenant-b/app%d:1", i)), PullSecrets{Namespace: "tenant-b"}); res.State != StateResolved {
				b.Fatalf("tenant B's image %d: %v %v", i, res.State, res.Err)
			}
		}
		return took
	}
	b.ResetTimer()
	for range b.N {
		alone := resolveB(b, false)
		beside := resolveB(b, true)
		b.ReportMetric(alone.Seconds(), "B-alone-s")
		b.ReportMetric(beside.Seconds(), "B-beside-A-s")
		b.ReportMetric(beside.Seconds()/alone.Seconds(), "ratio")
	}
}
