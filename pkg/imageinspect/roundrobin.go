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

// roundRobin holds items in one FIFO per group (a namespace) and hands
// them out a group at a time, in turn: a group with thousands of items
// waits behind a group with one at most one item. It is not safe for
// concurrent use; its owner locks.
type roundRobin[T comparable] struct {
	byGroup map[string][]T
	// turns are the groups with items, in the order of their next turn.
	turns []string
	n     int
}

func newRoundRobin[T comparable]() *roundRobin[T] {
	return &roundRobin[T]{byGroup: map[string][]T{}}
}

// push adds item at the back of its group's FIFO; a group that had none
// takes its turn after every group that has some.
func (q *roundRobin[T]) push(group string, item T) {
	items, ok := q.byGroup[group]
	if !ok {
		q.turns = append(q.turns, group)
	}
	q.byGroup[group] = append(items, item)
	q.n++
}

// pop takes the front item of the group whose turn it is; that group's
// next turn comes after every other group's.
func (q *roundRobin[T]) pop() (T, bool) {
	var zero T
	if len(q.turns) == 0 {
		return zero, false
	}
	group := q.turns[0]
	q.turns[0] = ""
	q.turns = q.turns[1:]
	items := q.byGroup[group]
	item := items[0]
	items[0] = zero
	if items = items[1:]; len(items) == 0 {
		delete(q.byGroup, group)
	} else {
		q.byGroup[group] = items
		q.turns = append(q.turns, group)
	}
	q.n--
	return item, true
}

func (q *roundRobin[T]) len() int { return q.n }
