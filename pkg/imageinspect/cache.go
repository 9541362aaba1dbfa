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
	"container/list"
	"slices"
	"sync/atomic"
	"time"
)

// maxAliases bounds the spellings of one image that Lookup finds without
// parsing ("nginx", "docker.io/library/nginx:latest", …).
const maxAliases = 8

// maxScopesPerImage bounds the entries one image has under pull-secret
// scopes (the shared entry aside): a tenant who names ever new secret sets
// replaces its own and other scopes' entries of that image, never the
// shared facts of any image, and adds at most this many entries per image.
const maxScopesPerImage = 16

// entryKey is an entry's place in the cache: an image key, or a spelling
// of it (an alias), under a credential scope. A struct of two strings:
// looking it up does not allocate.
type entryKey struct {
	ref, scope string
}

// entry is the cache's record of one image key under one credential
// scope.
type entry struct {
	ref imageRef
	// scope is the credential scope: "" for the shared entry, whose facts
	// anonymous or the static docker config obtained and every pod may
	// see; else the key of the pull-secret set (PullSecrets.key) that
	// alone may see them and alone is used to resolve them.
	scope string
	// pull is the scope's credential set (empty for the shared entry).
	pull PullSecrets
	// namespace is, for a scoped entry, the namespace of its pull
	// secrets; while a run is queued, the namespace it is queued for.
	namespace string
	// elem is the entry's place in the eviction list; nil while the entry
	// is pinned, which keeps it off the list.
	elem *list.Element
	// size is the entry's approximate size in bytes (entrysize.go).
	size int
	// aliases are the references, as pods spell them, that Lookup maps to
	// this entry.
	aliases []string
	// referenced is set by Lookup (under the read lock) and cleared by
	// eviction: an entry read since the last sweep gets a second chance.
	referenced atomic.Bool

	// res is what Lookup returns.
	res Result
	// freshUntil: for resolved tags, until when the facts are fresh; for
	// failures, until when the same credentials are not tried again.
	freshUntil time.Time
	// retryAt is when an automatic retry of a failure is due (zero: none).
	retryAt time.Time
	// pending: a run is queued; inflight: a run is going on.
	pending, inflight bool
	// waiters are told through OnResolved when a run ends.
	waiters map[string]struct{}
	// autoRetries counts automatic retries since the last success.
	autoRetries int
	// requested is when the pending run was asked for.
	requested time.Time
}

// entryKind sorts entries for the cache-size metric.
type entryKind uint8

const (
	kindPending entryKind = iota
	kindDigest
	kindTag
	kindFailed
	numKinds
)

func (e *entry) kind() entryKind {
	switch {
	case e.res.State == StateFailed:
		return kindFailed
	case e.res.State == StatePending:
		return kindPending
	case e.ref.isTag():
		return kindTag
	}
	return kindDigest
}

// pinned entries are not evicted: someone waits on them.
func (e *entry) pinned() bool {
	return e.pending || e.inflight || len(e.waiters) > 0
}

func (e *entry) addWaiter(w string) {
	if w == "" {
		return
	}
	if e.waiters == nil {
		e.waiters = map[string]struct{}{}
	}
	e.waiters[w] = struct{}{}
}

func (e *entry) takeWaiters(keep bool) []string {
	if len(e.waiters) == 0 {
		return nil
	}
	out := make([]string, 0, len(e.waiters))
	for w := range e.waiters {
		out = append(out, w)
	}
	if !keep {
		e.waiters = nil
	}
	return out
}

func (e *entry) key() entryKey { return entryKey{e.ref.key, e.scope} }

// cacheLimits bound the cache.
type cacheLimits struct {
	// entries and bytes bound the cache as a whole: entries by number,
	// and by their approximate size.
	entries, bytes int
	// scopedPerNamespace bounds the pull-secret-scoped entries of one
	// namespace.
	scopedPerNamespace int
}

// cache is the bounded set of entries; the resolver's mutex guards it.
//
// Pinned entries (a run is queued or under way, or a pod waits) cannot be
// evicted, so they are kept off the eviction list: an insert then costs
// the same whether 10 or 20,000 entries are pinned, where walking past
// them would cost every insert all of them, under the resolver's lock.
type cache struct {
	limits  cacheLimits
	entries map[entryKey]*entry
	aliases map[entryKey]*entry
	// scoped are the pull-secret-scoped entries of each image key.
	scoped map[string][]*entry
	// scopedIn are the pull-secret-scoped entries of each namespace.
	scopedIn map[string][]*entry
	// order is the eviction list of the entries not pinned.
	order  *list.List
	counts [numKinds]int
	// bytes is the sum of the entries' sizes.
	bytes int
}

func newCache(limits cacheLimits) *cache {
	return &cache{limits: limits, entries: map[entryKey]*entry{}, aliases: map[entryKey]*entry{},
		scoped: map[string][]*entry{}, scopedIn: map[string][]*entry{}, order: list.New()}
}

// roomForScope makes room for one more scoped entry of the image key in
// namespace: when the image has maxScopesPerImage scoped entries, it
// removes the one of them least recently used that nobody waits on, and
// when the namespace has its bound of them, the namespace's own. It
// reports false when every candidate is pinned: the new scope is not
// resolved now.
func (c *cache) roomForScope(key, namespace string) bool {
	if len(c.scoped[key]) >= maxScopesPerImage && !c.removeUnpinned(c.scoped[key]) {
		return false
	}
	return len(c.scopedIn[namespace]) < c.limits.scopedPerNamespace || c.removeUnpinned(c.scopedIn[namespace])
}

// removeUnpinned removes the entry of es (in insertion order) that
// nobody waits on and, among those, preferably one not read since the
// last sweep (one that evict too would not spare); false when all are
// pinned.
func (c *cache) removeUnpinned(es []*entry) bool {
	var victim *entry
	for _, e := range es {
		if e.pinned() {
			continue
		}
		if victim == nil || victim.referenced.Load() && !e.referenced.Load() {
			victim = e
		}
	}
	if victim == nil {
		return false
	}
	c.remove(victim)
	return true
}

// insert adds e and evicts what the bounds require.
func (c *cache) insert(e *entry) {
	c.entries[e.key()] = e
	if e.scope != "" {
		c.scoped[e.ref.key] = append(c.scoped[e.ref.key], e)
		c.scopedIn[e.pull.Namespace] = append(c.scopedIn[e.pull.Namespace], e)
	}
	if !e.pinned() {
		e.elem = c.order.PushFront(e)
	}
	c.counts[e.kind()]++
	e.size = e.sizeOf()
	c.bytes += e.size
	c.addAlias(e, e.ref.key)
	c.evict()
}

func (c *cache) addAlias(e *entry, alias string) {
	k := entryKey{alias, e.scope}
	if _, ok := c.aliases[k]; ok || len(e.aliases) >= maxAliases {
		return
	}
	c.aliases[k] = e
	e.aliases = append(e.aliases, alias)
	if c.entries[e.key()] == e {
		c.bytes += aliasSize(alias)
		e.size += aliasSize(alias)
	}
}

// update applies change to e, keeping the per-kind counts, the size and
// the eviction list right: an entry that becomes pinned leaves the list,
// one that stops being pinned joins it at the front, and the cache is
// brought back within its bounds.
func (c *cache) update(e *entry, change func()) {
	wasPinned := e.pinned()
	c.counts[e.kind()]--
	change()
	c.counts[e.kind()]++
	if c.entries[e.key()] != e {
		return
	}
	size := e.sizeOf()
	grew := size > e.size
	c.bytes += size - e.size
	e.size = size
	switch pinned := e.pinned(); {
	case pinned && e.elem != nil:
		c.order.Remove(e.elem)
		e.elem = nil
	case !pinned && e.elem == nil:
		e.elem = c.order.PushFront(e)
	}
	if wasPinned && !e.pinned() || grew {
		c.evict()
	}
}

// over reports whether the cache is over a bound.
func (c *cache) over() bool {
	return len(c.entries) > c.limits.entries || c.bytes > c.limits.bytes
}

// evict removes unpinned entries while the cache is over a bound, with
// the second-chance (CLOCK) approximation of LRU: Lookup only sets a
// flag, so that it never needs the write lock. Each entry is passed over
// at most once per read, so an insert costs O(1) amortised.
func (c *cache) evict() {
	for c.over() && c.order.Len() > 0 {
		back := c.order.Back()
		e := back.Value.(*entry)
		if e.referenced.Swap(false) {
			c.order.MoveToFront(back)
			continue
		}
		c.remove(e)
	}
}

// remove drops e from the cache; removing it again does nothing.
func (c *cache) remove(e *entry) {
	if c.entries[e.key()] != e {
		return
	}
	if e.elem != nil {
		c.order.Remove(e.elem)
		e.elem = nil
	}
	c.bytes -= e.size
	delete(c.entries, e.key())
	for _, a := range e.aliases {
		if k := (entryKey{a, e.scope}); c.aliases[k] == e {
			delete(c.aliases, k)
		}
	}
	if e.scope != "" {
		deleteFrom(c.scoped, e.ref.key, e)
		deleteFrom(c.scopedIn, e.pull.Namespace, e)
	}
	c.counts[e.kind()]--
}

// deleteFrom removes e from m[key], and the key when none is left.
func deleteFrom(m map[string][]*entry, key string, e *entry) {
	es := slices.DeleteFunc(m[key], func(x *entry) bool { return x == e })
	if len(es) == 0 {
		delete(m, key)
	} else {
		m[key] = es
	}
}
