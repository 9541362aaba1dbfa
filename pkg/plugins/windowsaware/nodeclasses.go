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

package windowsaware

import (
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/cache"

	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// A node's OS and build change only when the node object changes, and a
// cluster has a handful of distinct (OS, architecture, build) combinations.
// So each node object is classified once, when the informer delivers it,
// and a pod's verdict is worked out once per class in PreFilter; Filter and
// Score then find the node's class and index the verdict, never touching
// the node's labels.
//
// The table is keyed by the node object's identity. The scheduler's cache
// and snapshot hold the very objects the informer delivers, and replace a
// node's object on every change rather than modifying it, so an entry
// describes its key exactly and can never be stale: a node whose labels
// changed is a new key, which the table either holds with its new facts or
// does not hold yet, and then Filter reads its labels. The table keeps the
// objects it holds alive, so no newer object can reuse an address it knows.
//
// The table also keeps the names of each class's nodes, so that PreFilter
// can name the nodes that fit a pod as a union of a few sets instead of
// walking every node of the snapshot (see narrow). A node's status updates
// replace its object without moving it to another class, so they leave the
// sets alone; a set is copied only when a node joins or leaves its class.

// maxClasses bounds the distinct classes a table keeps; past it the table
// is rebuilt from the nodes it holds, dropping classes no node has any more.
const maxClasses = 1024

// classTable is one immutable generation of the node classification:
// goroutines running Filter read it without locks.
type classTable struct {
	classOf map[*v1.Node]int32
	hosts   []windows.Host // by class
	// names are the names of each class's nodes, by class. A set may be
	// shared with other generations and callers: it is never written once
	// published.
	names []sets.Set[string]
	// unions holds the union of the sets of each combination of classes
	// asked for, keyed by the classes' ids: the pods of one kind fit the
	// same classes, so each union is built once per generation. At most
	// maxUnions are kept.
	unions    sync.Map // string → sets.Set[string]
	numUnions atomic.Int32
}

// maxUnions bounds the unions a generation keeps.
const maxUnions = 64

// union returns the names of the nodes of classes, which hold size nodes
// in all. The set is shared: it must not be written.
func (t *classTable) union(classes []int32, size int) sets.Set[string] {
	if len(classes) == 1 {
		return t.names[classes[0]]
	}
	key := make([]byte, 0, 4*len(classes))
	for _, c := range classes {
		key = strconv.AppendInt(key, int64(c), 10)
		key = append(key, ',')
	}
	if u, ok := t.unions.Load(string(key)); ok {
		return u.(sets.Set[string])
	}
	u := make(sets.Set[string], size)
	for _, c := range classes {
		for name := range t.names[c] {
			u.Insert(name)
		}
	}
	if t.numUnions.Add(1) <= maxUnions {
		t.unions.Store(string(key), u)
	}
	return u
}

// holdsAll reports whether the table holds as many nodes as a snapshot of
// n nodes: then its sets name the snapshot's nodes, but for a node changed
// since the table was last brought up to date.
func (t *classTable) holdsAll(n int) bool {
	return t != nil && len(t.classOf) == n
}

// class returns the class of a node object, if the table holds it.
func (t *classTable) class(node *v1.Node) (int32, bool) {
	if t == nil {
		return 0, false
	}
	c, ok := t.classOf[node]
	return c, ok
}

// nodeClasses maintains the table from node events. Events only queue a
// change; the next PreFilter folds the queued changes into a new
// generation (see current), so that a burst of events, such as the initial
// listing of every node, costs one rebuild.
type nodeClasses struct {
	published atomic.Pointer[classTable]

	mu      sync.Mutex
	pending []nodeChange
	index   map[windows.Host]int32 // class of each host in the published table
}

// nodeChange replaces old by new in the table; either may be nil.
type nodeChange struct{ old, new *v1.Node }

func newNodeClasses() *nodeClasses {
	c := &nodeClasses{index: map[windows.Host]int32{}}
	c.published.Store(&classTable{classOf: map[*v1.Node]int32{}})
	return c
}

// handler returns the informer event handler that feeds the table.
func (c *nodeClasses) handler() cache.ResourceEventHandler {
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

func (c *nodeClasses) queue(ch nodeChange) {
	c.mu.Lock()
	c.pending = append(c.pending, ch)
	c.mu.Unlock()
}

// current returns the table with every queued change applied. Only
// PreFilter calls it, from the scheduling goroutine; a generation, once
// published, is never written again.
func (c *nodeClasses) current() *classTable {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.published.Load()
	if len(c.pending) == 0 {
		return t
	}
	next := &classTable{classOf: maps.Clone(t.classOf), hosts: t.hosts, names: slices.Clone(t.names)}
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
		id := c.classFor(next, podneeds.HostOf(ch.new))
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
	if len(next.hosts) > maxClasses {
		next = c.rebuild(next)
	}
	c.published.Store(next)
	return next
}

// classFor returns the class of host in next, adding one if it is new. The
// hosts slice is copied before it grows, so that earlier generations keep
// theirs.
func (c *nodeClasses) classFor(next *classTable, host windows.Host) int32 {
	if id, ok := c.index[host]; ok {
		return id
	}
	next.hosts = append(next.hosts[:len(next.hosts):len(next.hosts)], host)
	next.names = append(next.names, nil)
	id := int32(len(next.hosts) - 1)
	c.index[host] = id
	return id
}

// join adds a node's name to the set of class id, copying the set first
// unless copied says next already owns it.
func (t *classTable) join(id int32, name string, copied map[int32]bool) {
	t.own(id, copied).Insert(name)
}

// leave removes a node's name from the set of class id, copying the set
// first unless copied says next already owns it.
func (t *classTable) leave(id int32, name string, copied map[int32]bool) {
	if t.names[id].Has(name) {
		t.own(id, copied).Delete(name)
	}
}

func (t *classTable) own(id int32, copied map[int32]bool) sets.Set[string] {
	if !copied[id] {
		t.names[id] = t.names[id].Clone() // a new class's nil set too
		copied[id] = true
	}
	return t.names[id]
}

// rebuild classifies the nodes of t afresh, keeping only the classes some
// node has.
func (c *nodeClasses) rebuild(t *classTable) *classTable {
	c.index = map[windows.Host]int32{}
	next := &classTable{classOf: make(map[*v1.Node]int32, len(t.classOf))}
	copied := map[int32]bool{}
	for node, id := range t.classOf {
		id = c.classFor(next, t.hosts[id])
		next.classOf[node] = id
		next.join(id, node.Name, copied)
	}
	return next
}
