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
	// elem is the entry's place in the eviction list.
	elem *list.Element
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

// cache is the bounded set of entries; the resolver's mutex guards it.
type cache struct {
	max     int
	entries map[entryKey]*entry
	aliases map[entryKey]*entry
	// scoped are the pull-secret-scoped entries of each image key.
	scoped map[string][]*entry
	order  *list.List
	counts [numKinds]int
}

func newCache(max int) *cache {
	return &cache{max: max, entries: map[entryKey]*entry{}, aliases: map[entryKey]*entry{}, scoped: map[string][]*entry{}, order: list.New()}
}

// roomForScope makes room for one more scoped entry of the image key: it
// removes that image's least recently used scoped entry that nobody waits
// on, when the image has maxScopesPerImage. It reports false when every
// one is pinned: the new scope is not resolved now.
func (c *cache) roomForScope(key string) bool {
	es := c.scoped[key]
	if len(es) < maxScopesPerImage {
		return true
	}
	// The list is in insertion order; prefer an entry not read since the
	// last sweep, as evict does.
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

// insert adds e and evicts what the bound requires.
func (c *cache) insert(e *entry) {
	c.entries[e.key()] = e
	if e.scope != "" {
		c.scoped[e.ref.key] = append(c.scoped[e.ref.key], e)
	}
	e.elem = c.order.PushFront(e)
	c.counts[e.kind()]++
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
}

// update applies change to e, keeping the per-kind counts right.
func (c *cache) update(e *entry, change func()) {
	c.counts[e.kind()]--
	change()
	c.counts[e.kind()]++
}

// evict removes entries over the bound with the second-chance (CLOCK)
// approximation of LRU: Lookup only sets a flag, so that it never needs
// the write lock.
func (c *cache) evict() {
	for budget := 2 * c.order.Len(); c.order.Len() > c.max && budget > 0; budget-- {
		back := c.order.Back()
		e := back.Value.(*entry)
		if e.pinned() || e.referenced.Swap(false) {
			c.order.MoveToFront(back)
			continue
		}
		c.remove(e)
	}
}

func (c *cache) remove(e *entry) {
	c.order.Remove(e.elem)
	delete(c.entries, e.key())
	for _, a := range e.aliases {
		if k := (entryKey{a, e.scope}); c.aliases[k] == e {
			delete(c.aliases, k)
		}
	}
	if e.scope != "" {
		es := slices.DeleteFunc(c.scoped[e.ref.key], func(x *entry) bool { return x == e })
		if len(es) == 0 {
			delete(c.scoped, e.ref.key)
		} else {
			c.scoped[e.ref.key] = es
		}
	}
	c.counts[e.kind()]--
}
