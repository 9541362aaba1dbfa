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
	"slices"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

// queued is one Add: an item and its group.
type queued struct{ item, group string }

func TestFairQueue(t *testing.T) {
	tests := []struct {
		name string
		adds []queued
		// want is the order Get hands the items out in.
		want []string
	}{
		{name: "one group is FIFO", adds: []queued{{"a1", "a"}, {"a2", "a"}, {"a3", "a"}}, want: []string{"a1", "a2", "a3"}},
		{name: "groups take turns", adds: []queued{{"a1", "a"}, {"a2", "a"}, {"a3", "a"}, {"b1", "b"}, {"c1", "c"}, {"b2", "b"}},
			want: []string{"a1", "b1", "c1", "a2", "b2", "a3"}},
		{name: "an item queued twice is handed out once", adds: []queued{{"a1", "a"}, {"a1", "a"}, {"b1", "b"}, {"a1", "a"}},
			want: []string{"a1", "b1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newFairQueue[string](clocktesting.NewFakeClock(time.Now()))
			for _, a := range tt.adds {
				q.Add(a.item, a.group)
			}
			q.ShutDown()
			var got []string
			for {
				item, shutdown := q.Get()
				if shutdown {
					break
				}
				got = append(got, item)
				q.Done(item)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Get order = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestFairQueueProcessing: an item added while it is processed is handed
// out again after Done, not before; AddAfter waits on the queue's clock;
// after ShutDown nothing is added.
func TestFairQueueProcessing(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Now())
	q := newFairQueue[string](clk)
	q.Add("a1", "a")
	item, _ := q.Get()
	q.Add("a1", "a")
	if n := q.Len(); n != 0 {
		t.Fatalf("an item added while processed is ready before Done: %d ready", n)
	}
	q.Done(item)
	if n := q.Len(); n != 1 {
		t.Fatalf("an item added while processed is not ready after Done: %d ready", n)
	}
	item, _ = q.Get()
	q.Done(item)

	q.AddAfter("b1", "b", time.Second)
	if n := q.Len(); n != 0 {
		t.Fatalf("AddAfter ready before its delay: %d ready", n)
	}
	clk.Step(time.Second)
	if n := q.Len(); n != 1 {
		t.Fatalf("AddAfter not ready after its delay: %d ready", n)
	}
	q.AddAfter("c1", "c", time.Second)
	q.ShutDown()
	clk.Step(time.Second)
	q.Add("d1", "d")
	var got []string
	for {
		item, shutdown := q.Get()
		if shutdown {
			break
		}
		got = append(got, item)
		q.Done(item)
	}
	if !slices.Equal(got, []string{"b1"}) {
		t.Errorf("after ShutDown Get handed out %v, want the ready b1 alone", got)
	}
}

// TestHostSlots: a full host parks resolutions and hands each freed slot
// to the next one parked, a namespace at a time.
func TestHostSlots(t *testing.T) {
	s := newHostSlots(1)
	key := func(k string) entryKey { return entryKey{ref: k} }
	if !s.take("h", key("a0"), "a") {
		t.Fatal("the first resolution found no slot")
	}
	for _, p := range []queued{{"a1", "a"}, {"a2", "a"}, {"a3", "a"}, {"b1", "b"}, {"b2", "b"}} {
		if s.take("h", key(p.item), p.group) {
			t.Fatalf("%s took a slot of a full host", p.item)
		}
	}
	if !s.take("other", key("c1"), "c") {
		t.Fatal("a full host blocked another")
	}
	var handed []string
	for {
		next, ok := s.release("h")
		if !ok {
			break
		}
		handed = append(handed, next.key.ref)
		if !s.take("h", next.key, next.namespace) {
			t.Fatalf("%s was handed a slot it could not take", next.key.ref)
		}
	}
	if want := []string{"a1", "b1", "a2", "b2", "a3"}; !slices.Equal(handed, want) {
		t.Errorf("slots handed to %v, want %v", handed, want)
	}
	if s.active["h"] != 0 {
		t.Errorf("%d slots of h counted after every release", s.active["h"])
	}
}
