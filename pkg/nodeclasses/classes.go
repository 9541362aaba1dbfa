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

package nodeclasses

import (
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
)

// Classes maintains the table from node events. Events only queue a
// change; the next PreFilter folds the queued changes into a new
// generation (see Current), so that a burst of events, such as the initial
// listing of every node, costs one rebuild.
type Classes struct {
	published atomic.Pointer[Table]

	mu      sync.Mutex
	pending []nodeChange
	index   map[Key]int32 // class of each key in the published table
}

// nodeChange replaces old by new in the table; either may be nil.
type nodeChange struct{ old, new *v1.Node }

// New returns an empty classification.
func New() *Classes {
	c := &Classes{index: map[Key]int32{}}
	c.published.Store(&Table{classOf: map[*v1.Node]int32{}})
	return c
}

// Handler returns the informer event handler that feeds the table.
func (c *Classes) Handler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if n, ok := obj.(*v1.Node); ok {
				c.queue(nodeChange{new: n})
			}
		},
		UpdateFunc: func(oldObj, newObj any) {
			o, _ := oldObj.(*v1.Node)
			n, _ := newObj.(*v1.Node)
			c.queue(nodeChange{old: o, new: n})
		},
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			if n, ok := obj.(*v1.Node); ok {
				c.queue(nodeChange{old: n})
			}
		},
	}
}

func (c *Classes) queue(ch nodeChange) {
	c.mu.Lock()
	c.pending = append(c.pending, ch)
	c.mu.Unlock()
}

// Current returns the table with every queued change applied. Only
// PreFilter calls it, from the scheduling goroutine; a generation, once
// published, is never written again.
func (c *Classes) Current() *Table {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.published.Load()
	if len(c.pending) == 0 {
		return t
	}
	next := &Table{classOf: maps.Clone(t.classOf), keys: t.keys, names: slices.Clone(t.names)}
	copied := map[int32]bool{} // the sets of next that are its own copies
	for _, ch := range c.pending {
		oldID, hadOld := int32(-1), false
		if ch.old != nil {
			oldID, hadOld = next.classOf[ch.old]
			delete(next.classOf, ch.old)
		}
		if ch.new == nil {
			if hadOld {
				next.leave(oldID, ch.old.Name, copied)
			}
			continue
		}
		id := c.classFor(next, KeyOf(ch.new))
		next.classOf[ch.new] = id
		if hadOld && oldID == id && ch.old.Name == ch.new.Name {
			continue // a status update: same node, same class
		}
		if hadOld {
			next.leave(oldID, ch.old.Name, copied)
		}
		next.join(id, ch.new.Name, copied)
	}
	clear(c.pending)
	c.pending = c.pending[:0]
	if len(next.keys) > MaxClasses {
		next = c.rebuild(next)
	}
	// Once the retiring nodes are gone, pods that name no build need no
	// scoring again.
	for id, k := range next.keys {
		if k.Retiring && len(next.names[id]) > 0 {
			next.retiring = true
			break
		}
	}
	c.published.Store(next)
	return next
}

// classFor returns the class of key in next, adding one if it is new. The
// keys slice is copied before it grows, so that earlier generations keep
// theirs.
func (c *Classes) classFor(next *Table, key Key) int32 {
	if id, ok := c.index[key]; ok {
		return id
	}
	next.keys = append(next.keys[:len(next.keys):len(next.keys)], key)
	next.names = append(next.names, nil)
	id := int32(len(next.keys) - 1)
	c.index[key] = id
	return id
}

// rebuild classifies the nodes of t afresh, keeping only the classes some
// node has.
func (c *Classes) rebuild(t *Table) *Table {
	c.index = map[Key]int32{}
	next := &Table{classOf: make(map[*v1.Node]int32, len(t.classOf))}
	copied := map[int32]bool{}
	for node, id := range t.classOf {
		id = c.classFor(next, t.keys[id])
		next.classOf[node] = id
		next.join(id, node.Name, copied)
	}
	return next
}
