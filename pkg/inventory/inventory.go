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

package inventory

import (
	"slices"
	"sync"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
)

// Inventory is the classes of a cluster's nodes and its NodePools, kept
// from informer events. Events change counts under a lock; readers take
// an immutable Snapshot, rebuilt at the first read after a change, so that
// the initial listing of every node costs one rebuild, and a review never
// waits on an event.
type Inventory struct {
	mu sync.Mutex
	// classOf is each node's class, by name.
	classOf map[string]classKey
	classes map[classKey]*Class
	pools   map[string]*NodePool
	// synced reports whether every informer has listed; nil: no informer
	// (tests), always synced.
	synced []cache.InformerSynced

	dirty    atomic.Bool
	snapshot atomic.Pointer[Snapshot]
}

// New returns an empty inventory.
func New() *Inventory {
	inv := &Inventory{classOf: map[string]classKey{}, classes: map[classKey]*Class{}, pools: map[string]*NodePool{}}
	inv.dirty.Store(true)
	return inv
}

// NodeHandler returns the event handler that feeds the inventory from a
// node informer (whose transform should be Project).
func (inv *Inventory) NodeHandler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { inv.SetNode(nodeOf(obj)) },
		UpdateFunc: func(_, obj any) { inv.SetNode(nodeOf(obj)) },
		DeleteFunc: func(obj any) {
			if n := nodeOf(obj); n != nil {
				inv.DeleteNode(n.Name)
			}
		},
	}
}

// NodePoolHandler returns the event handler that feeds the inventory from
// a NodePool informer (whose transform should be ProjectNodePool).
func (inv *Inventory) NodePoolHandler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { inv.setNodePool(obj) },
		UpdateFunc: func(_, obj any) { inv.setNodePool(obj) },
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			if p, ok := nodePoolOf(obj); ok {
				inv.mu.Lock()
				delete(inv.pools, p.Name)
				inv.mu.Unlock()
				inv.dirty.Store(true)
			}
		},
	}
}

func nodeOf(obj any) *v1.Node {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	n, _ := obj.(*v1.Node)
	return n
}

// SetNode adds a node, or moves it to its class when it changed.
func (inv *Inventory) SetNode(node *v1.Node) {
	if node == nil {
		return
	}
	key := keyOf(node)
	inv.mu.Lock()
	defer inv.mu.Unlock()
	old, had := inv.classOf[node.Name]
	if had && old == key {
		return // a status update: nothing the inventory reads changed
	}
	if had {
		inv.leave(old)
	}
	c := inv.classes[key]
	if c == nil {
		c = newClass(key, node)
		inv.classes[key] = c
	}
	c.Nodes++
	inv.classOf[node.Name] = key
	inv.dirty.Store(true)
}

// DeleteNode removes a node.
func (inv *Inventory) DeleteNode(name string) {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	if key, ok := inv.classOf[name]; ok {
		delete(inv.classOf, name)
		inv.leave(key)
		inv.dirty.Store(true)
	}
}

// leave takes a node out of its class, and the class away with its last
// node. Classes are shared with snapshots, so a count is changed on a
// copy.
func (inv *Inventory) leave(key classKey) {
	c := inv.classes[key]
	if c.Nodes <= 1 {
		delete(inv.classes, key)
		return
	}
	next := *c
	next.Nodes--
	inv.classes[key] = &next
}

func (inv *Inventory) setNodePool(obj any) {
	p, ok := nodePoolOf(obj)
	if !ok {
		return
	}
	inv.mu.Lock()
	inv.pools[p.Name] = p
	inv.mu.Unlock()
	inv.dirty.Store(true)
}

// Snapshot is the inventory as it stands. It is never written once made,
// and may be read by any number of goroutines.
func (inv *Inventory) Snapshot() *Snapshot {
	if !inv.dirty.Load() {
		if s := inv.snapshot.Load(); s != nil && s.Synced {
			return s
		}
	}
	inv.mu.Lock()
	defer inv.mu.Unlock()
	inv.dirty.Store(false)
	s := &Snapshot{Synced: true, Classes: make([]*Class, 0, len(inv.classes))}
	for _, fn := range inv.synced {
		if !fn() {
			s.Synced = false
		}
	}
	for _, c := range inv.classes {
		s.Classes = append(s.Classes, c)
		s.Nodes += c.Nodes
	}
	slices.SortFunc(s.Classes, compareClasses)
	for _, p := range inv.pools {
		s.NodePools = append(s.NodePools, p)
	}
	slices.SortFunc(s.NodePools, func(a, b *NodePool) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	inv.snapshot.Store(s)
	return s
}

// Snapshot is the cluster's node classes and NodePools at one time.
type Snapshot struct {
	// Synced is false until every informer has listed: a pod judged then
	// may run on nodes not listed yet.
	Synced    bool
	Classes   []*Class
	NodePools []*NodePool
	// Nodes counts the nodes.
	Nodes int
}
