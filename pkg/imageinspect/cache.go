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
	"sync/atomic"
	"time"
)

// maxAliases bounds the spellings of one image that Lookup finds without
// parsing ("nginx", "docker.io/library/nginx:latest", …).
const maxAliases = 8

// maxPullSets bounds the credential sets one image is tried with.
const maxPullSets = 4

// entry is the cache's record of one image key.
type entry struct {
	ref imageRef
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
	// pulls are the credential sets wanted for this image, newest first.
	pulls []PullSecrets
	// triedPulls are the keys of the credential sets the last failure
	// tried.
	triedPulls map[string]bool
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

// addPull records a credential set; it reports whether the set is new.
func (e *entry) addPull(p PullSecrets) bool {
	k := p.key()
	for _, q := range e.pulls {
		if q.key() == k {
			return false
		}
	}
	e.pulls = append([]PullSecrets{p}, e.pulls...)
	if len(e.pulls) > maxPullSets {
		e.pulls = e.pulls[:maxPullSets]
	}
	return true
}

// cache is the bounded set of entries; the resolver's mutex guards it.
type cache struct {
	max     int
	entries map[string]*entry
	aliases map[string]*entry
	order   *list.List
	counts  [numKinds]int
}

func newCache(max int) *cache {
	return &cache{max: max, entries: map[string]*entry{}, aliases: map[string]*entry{}, order: list.New()}
}

// insert adds e and evicts what the bound requires.
func (c *cache) insert(e *entry) {
	c.entries[e.ref.key] = e
	e.elem = c.order.PushFront(e)
	c.counts[e.kind()]++
	c.addAlias(e, e.ref.key)
	c.evict()
}

func (c *cache) addAlias(e *entry, alias string) {
	if _, ok := c.aliases[alias]; ok || len(e.aliases) >= maxAliases {
		return
	}
	c.aliases[alias] = e
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
	delete(c.entries, e.ref.key)
	for _, a := range e.aliases {
		if c.aliases[a] == e {
			delete(c.aliases, a)
		}
	}
	c.counts[e.kind()]--
}
