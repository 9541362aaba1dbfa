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

package ungate

import (
	"strings"
	"sync"
	"time"
)

// fairQueue is the order in which the gate remover's workers take gated
// pods (a workqueue.Queue of namespace/name keys), so that one namespace's
// pods never hold another's at the gate:
//
//   - a pod already past its deadline is taken first: it costs a worker
//     one update, not a wait;
//   - otherwise the namespaces take turns, a pod each, in the order their
//     pods arrived;
//   - a namespace holding its share of the workers (perNamespace) is
//     passed over while another namespace has a pod waiting.
//
// With that, a pod of a namespace that has one waits at most for the first
// worker to come free: every pod in progress was taken before it arrived,
// so its deadline comes no later than the new pod's own (plus the time
// to take it), whatever the other namespace queued.
//
// Push, Pop, Len and Touch run under the workqueue's lock; finished,
// called by a worker done with a pod, under the queue's own.
type fairQueue struct {
	// due tells when a key's pod stops waiting for its registry; false
	// for a key whose pod is gone.
	due          func(key string) (time.Time, bool)
	now          func() time.Time
	perNamespace int

	// Under the workqueue's lock.
	byNamespace map[string][]string
	// turns are the namespaces with a queued pod, in the order they take
	// turns; next is the one whose turn it is.
	turns []string
	next  int
	n     int

	mu sync.Mutex
	// inProgress counts each namespace's pods that workers hold.
	inProgress map[string]int
}

func newFairQueue(due func(string) (time.Time, bool), now func() time.Time, perNamespace int) *fairQueue {
	return &fairQueue{due: due, now: now, perNamespace: max(perNamespace, 1), byNamespace: map[string][]string{}, inProgress: map[string]int{}}
}

func namespaceOf(key string) string {
	ns, _, _ := strings.Cut(key, "/")
	return ns
}

// Touch is a pod queued again while still queued: its place stands.
func (q *fairQueue) Touch(string) {}

// Len is the number of queued pods.
func (q *fairQueue) Len() int { return q.n }

// Push queues key behind its namespace's pods.
func (q *fairQueue) Push(key string) {
	ns := namespaceOf(key)
	if len(q.byNamespace[ns]) == 0 {
		q.turns = append(q.turns, ns)
	}
	q.byNamespace[ns] = append(q.byNamespace[ns], key)
	q.n++
}

// Pop takes the next key, as the type's comment says; the workqueue calls
// it only when Len is not 0.
func (q *fairQueue) Pop() string {
	now := q.now()
	// A pod past its deadline, at the head of its namespace, the
	// namespaces in turn from the one whose turn it is: a namespace with
	// hundreds of late pods takes one, then another namespace's late pod.
	for k := range q.turns {
		i := (q.next + k) % len(q.turns)
		if due, ok := q.due(q.byNamespace[q.turns[i]][0]); !ok || !due.After(now) {
			return q.take(i)
		}
	}
	// The next namespace in turn below its share, else the next in turn.
	q.mu.Lock()
	pick := -1
	for k := range q.turns {
		i := (q.next + k) % len(q.turns)
		if q.inProgress[q.turns[i]] < q.perNamespace {
			pick = i
			break
		}
	}
	q.mu.Unlock()
	if pick < 0 {
		pick = q.next % len(q.turns)
	}
	return q.take(pick)
}

// take removes the head of the namespace at turns[i]; the turn passes to
// the namespace after it.
func (q *fairQueue) take(i int) string {
	ns := q.turns[i]
	keys := q.byNamespace[ns]
	key := keys[0]
	keys[0] = ""
	if len(keys) == 1 {
		delete(q.byNamespace, ns)
		q.turns = append(q.turns[:i], q.turns[i+1:]...)
		q.next = i
	} else {
		q.byNamespace[ns] = keys[1:]
		q.next = i + 1
	}
	if len(q.turns) > 0 {
		q.next %= len(q.turns)
	} else {
		q.next = 0
	}
	q.n--
	q.mu.Lock()
	q.inProgress[ns]++
	q.mu.Unlock()
	return key
}

// finished takes a worker's pod out of its namespace's share.
func (q *fairQueue) finished(key string) {
	q.mu.Lock()
	ns := namespaceOf(key)
	if q.inProgress[ns]--; q.inProgress[ns] <= 0 {
		delete(q.inProgress, ns)
	}
	q.mu.Unlock()
}
