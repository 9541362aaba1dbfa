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
	"strings"
	"testing"
)

// testEntry is an entry of the shared scope, pinned when a run is queued.
func testEntry(key string, pinned bool) *entry {
	return &entry{ref: imageRef{key: key}, pending: pinned}
}

// TestEvictionKeepsPinned: eviction never removes a pinned entry, however
// many there are, and once entries are unpinned the cache is within its
// bound again at once.
func TestEvictionKeepsPinned(t *testing.T) {
	tests := []struct {
		name           string
		max            int
		pinned, others int
		// unpin unpins this many of the pinned entries at the end.
		unpin int
	}{
		{name: "few pinned", max: 8, pinned: 3, others: 50, unpin: 3},
		{name: "more pinned than the bound", max: 8, pinned: 20, others: 50, unpin: 20},
		{name: "some unpinned", max: 8, pinned: 20, others: 50, unpin: 5},
		{name: "all pinned, none unpinned", max: 8, pinned: 30, others: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCache(cacheLimits{entries: tt.max, bytes: 1 << 30, scopedPerNamespace: 256})
			var pinned []*entry
			for i := range tt.pinned {
				e := testEntry(fmt.Sprintf("pinned-%d", i), true)
				c.insert(e)
				pinned = append(pinned, e)
			}
			for i := range tt.others {
				c.insert(testEntry(fmt.Sprintf("other-%d", i), false))
			}
			for _, e := range pinned {
				if c.entries[e.key()] != e {
					t.Fatalf("pinned entry %s evicted", e.ref.key)
				}
			}
			for _, e := range pinned[:tt.unpin] {
				c.update(e, func() { e.pending = false })
			}
			stillPinned := tt.pinned - tt.unpin
			if want := max(tt.max, stillPinned); len(c.entries) > want {
				t.Errorf("%d entries with %d pinned, bound %d: want at most %d", len(c.entries), stillPinned, tt.max, want)
			}
			for _, e := range pinned[tt.unpin:] {
				if c.entries[e.key()] != e {
					t.Errorf("pinned entry %s evicted", e.ref.key)
				}
			}
			checkCacheConsistent(t, c)
		})
	}
}

// TestCacheBoundInBytes: entries of long references count for what they
// hold; the cache stays within MaxBytes as well as MaxEntries.
func TestCacheBoundInBytes(t *testing.T) {
	tests := []struct {
		name     string
		refBytes int
		maxBytes int
	}{
		{"short references, entry bound binds", 20, 1 << 20},
		{"long references", 4 << 10, 256 << 10},
		{"long references, tight bound", 8 << 10, 128 << 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, Config{Registries: []Registry{{Host: "registry.example"}}, MaxEntries: 400, MaxBytes: tt.maxBytes})
			for i := range 500 {
				// Not allowlisted, or not a reference: failed at once, with
				// the reference in the error text.
				long := strings.Repeat("a", tt.refBytes)
				h.Want(fmt.Sprintf("elsewhere.example/%s:%d", long, i), "", PullSecrets{})
				h.Want(fmt.Sprintf("Not A Reference %s %d", long, i), "", PullSecrets{})
			}
			h.Resolver.mu.RLock()
			defer h.Resolver.mu.RUnlock()
			held := 0
			for _, e := range h.cache.entries {
				held += len(e.ref.key)
				for _, a := range e.aliases {
					held += len(a)
				}
				if err := ErrorOf(e.res); err != nil {
					held += len(err.Image) + len(err.Detail)
				}
			}
			if held > tt.maxBytes {
				t.Errorf("cache holds %d bytes of strings, bound %d", held, tt.maxBytes)
			}
			if len(h.cache.entries) > 400 {
				t.Errorf("%d entries, bound 400", len(h.cache.entries))
			}
			if len(h.cache.entries) == 0 {
				t.Errorf("cache emptied")
			}
		})
	}
}

// checkCacheConsistent checks the counts and lists against the entries.
func checkCacheConsistent(t *testing.T, c *cache) {
	t.Helper()
	onList := 0
	for el := c.order.Front(); el != nil; el = el.Next() {
		e := el.Value.(*entry)
		if c.entries[e.key()] != e {
			t.Errorf("eviction list holds removed entry %s", e.ref.key)
		}
		onList++
	}
	total := 0
	for _, n := range c.counts {
		total += n
	}
	if total != len(c.entries) {
		t.Errorf("per-kind counts sum to %d, entries %d", total, len(c.entries))
	}
	unpinned := 0
	for _, e := range c.entries {
		if !e.pinned() {
			unpinned++
		}
	}
	if onList != unpinned {
		t.Errorf("%d entries on the eviction list, %d unpinned", onList, unpinned)
	}
}

// BenchmarkInsertWithPinned inserts into a full cache that holds 20,000
// pinned entries (a registry down, 20,000 images waiting): each insert
// evicts one unpinned entry, and must not walk the pinned ones.
func BenchmarkInsertWithPinned(b *testing.B) {
	for _, pinned := range []int{0, 20000} {
		b.Run(fmt.Sprintf("pinned=%d", pinned), func(b *testing.B) {
			const unpinned = 1000
			c := newCache(cacheLimits{entries: pinned + unpinned, bytes: 1 << 40, scopedPerNamespace: 256})
			for i := range pinned {
				c.insert(testEntry(fmt.Sprintf("pinned-%d", i), true))
			}
			keys := make([]string, b.N+unpinned)
			for i := range keys {
				keys[i] = fmt.Sprintf("image-%d", i)
			}
			for _, k := range keys[:unpinned] {
				c.insert(testEntry(k, false))
			}
			b.ResetTimer()
			for i := range b.N {
				c.insert(testEntry(keys[unpinned+i], false))
			}
		})
	}
}
