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
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// One FIFO for every namespace would let a tenant that creates thousands
// of pods of new images put all of them before a neighbour's single pod:
// the neighbour's pods wait out the whole backlog. fairQueue hands out
// work a namespace at a time instead, so a namespace's next resolution
// waits for at most one of every other namespace's.

// fairQueue is the resolver's work queue: per-group (namespace) FIFOs taken
// in turn. As client-go's workqueue, an item is queued at most once, an
// item added while being processed is queued again when Done, and Get
// blocks until there is an item or the queue is shut down.
type fairQueue[T comparable] struct {
	clock clock.WithDelayedExecution

	mu   sync.Mutex
	cond *sync.Cond
	// ready are the items Get hands out next.
	ready *roundRobin[T]
	// dirty are the items queued, or to be queued again when Done, with
	// their group.
	dirty map[T]string
	// processing are the items handed out and not Done yet.
	processing   map[T]struct{}
	shuttingDown bool
}

func newFairQueue[T comparable](clk clock.WithDelayedExecution) *fairQueue[T] {
	q := &fairQueue[T]{clock: clk, ready: newRoundRobin[T](), dirty: map[T]string{}, processing: map[T]struct{}{}}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// Add queues item at the back of group's FIFO, unless it is queued
// already; after ShutDown it does nothing.
func (q *fairQueue[T]) Add(item T, group string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.shuttingDown {
		return
	}
	if _, ok := q.dirty[item]; ok {
		return
	}
	q.dirty[item] = group
	if _, ok := q.processing[item]; ok {
		return
	}
	q.ready.push(group, item)
	q.cond.Signal()
}

// AddAfter adds item once d has passed on the queue's clock.
func (q *fairQueue[T]) AddAfter(item T, group string, d time.Duration) {
	if d <= 0 {
		q.Add(item, group)
		return
	}
	q.mu.Lock()
	down := q.shuttingDown
	q.mu.Unlock()
	if down {
		return
	}
	q.clock.AfterFunc(d, func() { q.Add(item, group) })
}

// Get blocks until an item is ready and hands it out; the caller calls
// Done with it. shutdown is true once the queue is shut down and drained.
func (q *fairQueue[T]) Get() (item T, shutdown bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.ready.len() == 0 && !q.shuttingDown {
		q.cond.Wait()
	}
	item, ok := q.ready.pop()
	if !ok {
		return item, true
	}
	q.processing[item] = struct{}{}
	delete(q.dirty, item)
	return item, false
}

// Done ends the processing of item; if it was added meanwhile, it is
// queued again.
func (q *fairQueue[T]) Done(item T) {
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.processing, item)
	if group, ok := q.dirty[item]; ok {
		q.ready.push(group, item)
		q.cond.Signal()
	}
}

// ShutDown stops the queue: Add does nothing from then on, and Get
// returns shutdown once the ready items are handed out.
func (q *fairQueue[T]) ShutDown() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.shuttingDown = true
	q.cond.Broadcast()
}

// Len is the number of ready items.
func (q *fairQueue[T]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.ready.len()
}
