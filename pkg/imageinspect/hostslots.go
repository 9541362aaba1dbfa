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

// A registry host takes at most PerRegistry resolutions at a time. A
// resolution that finds its host full waits parked, off the work queue,
// rather than going round the queue again and again: that would keep the
// workers busy doing nothing, and hand a freed slot to whichever image
// came round first, so that a namespace with thousands of images queued
// for a host would get nearly every slot. A freed slot is handed to the
// parked resolutions a namespace at a time instead.

// hostSlots counts the resolutions under way per registry host and parks
// those over the limit. The resolver's mutex guards it.
type hostSlots struct {
	limit  int
	active map[string]int
	// parked are the keys waiting for a slot of a host, by namespace.
	parked   map[string]*roundRobin[parkedKey]
	isParked map[entryKey]struct{}
	// granted are keys handed a freed slot, queued to take it up: the
	// slot stays counted as active for them, by host.
	granted map[entryKey]string
}

// parkedKey is a parked entry with the namespace it was queued for.
type parkedKey struct {
	key       entryKey
	namespace string
}

func newHostSlots(limit int) *hostSlots {
	return &hostSlots{limit: limit, active: map[string]int{}, parked: map[string]*roundRobin[parkedKey]{},
		isParked: map[entryKey]struct{}{}, granted: map[entryKey]string{}}
}

// take claims a slot of host for key: the one handed to it, or a free one.
// When there is none, it parks key until release hands it one, and
// reports false.
func (s *hostSlots) take(host string, key entryKey, namespace string) bool {
	if h, ok := s.granted[key]; ok && h == host {
		delete(s.granted, key)
		return true
	}
	if s.active[host] < s.limit {
		s.active[host]++
		return true
	}
	if _, ok := s.isParked[key]; ok {
		return false
	}
	q, ok := s.parked[host]
	if !ok {
		q = newRoundRobin[parkedKey]()
		s.parked[host] = q
	}
	q.push(namespace, parkedKey{key, namespace})
	s.isParked[key] = struct{}{}
	return false
}

// cancelGrant gives up the slot handed to key, which needs no run any
// more; the caller releases the host it returns.
func (s *hostSlots) cancelGrant(key entryKey) (host string, ok bool) {
	host, ok = s.granted[key]
	delete(s.granted, key)
	return host, ok
}

// release gives back a slot of host. When resolutions are parked for it,
// the slot goes to the next one, in turn by namespace, and release returns
// it for the caller to queue.
func (s *hostSlots) release(host string) (parkedKey, bool) {
	if q, ok := s.parked[host]; ok {
		next, _ := q.pop()
		if q.len() == 0 {
			delete(s.parked, host)
		}
		delete(s.isParked, next.key)
		s.granted[next.key] = host
		return next, true
	}
	if s.active[host]--; s.active[host] <= 0 {
		delete(s.active, host)
	}
	return parkedKey{}, false
}
