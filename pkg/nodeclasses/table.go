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
	"strconv"
	"sync"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/windows-aware/windows-aware/pkg/windows"
)

// MaxClasses bounds the distinct classes a table keeps; past it the table
// is rebuilt from the nodes it holds, dropping classes no node has any more.
const MaxClasses = 1024

// Table is one immutable generation of the node classification:
// goroutines running Filter read it without locks.
type Table struct {
	classOf map[*v1.Node]int32
	keys    []Key // by class
	// retiring is set when some node of the table is retiring: only then
	// does Score rank the nodes of pods that name no build.
	retiring bool
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

// Union returns the names of the nodes of classes, which hold size nodes
// in all. The set is shared: it must not be written.
func (t *Table) Union(classes []int32, size int) sets.Set[string] {
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

// HoldsAll reports whether the table holds as many nodes as a snapshot of
// n nodes: then its sets name the snapshot's nodes, but for a node changed
// since the table was last brought up to date.
func (t *Table) HoldsAll(n int) bool {
	return t != nil && len(t.classOf) == n
}

// Class returns the class of a node object, if the table holds it.
func (t *Table) Class(node *v1.Node) (int32, bool) {
	if t == nil {
		return 0, false
	}
	c, ok := t.classOf[node]
	return c, ok
}

// join adds a node's name to the set of class id, copying the set first
// unless copied says next already owns it.
func (t *Table) join(id int32, name string, copied map[int32]bool) {
	t.own(id, copied).Insert(name)
}

// leave removes a node's name from the set of class id, copying the set
// first unless copied says next already owns it.
func (t *Table) leave(id int32, name string, copied map[int32]bool) {
	if t.names[id].Has(name) {
		t.own(id, copied).Delete(name)
	}
}

func (t *Table) own(id int32, copied map[int32]bool) sets.Set[string] {
	if !copied[id] {
		t.names[id] = t.names[id].Clone() // a new class's nil set too
		copied[id] = true
	}
	return t.names[id]
}

// Len is the number of classes, some of which may have no node left.
func (t *Table) Len() int { return len(t.keys) }

// Host is what the nodes of class c offer. The pointer is into the
// table, which is never written once published: it must not be written.
func (t *Table) Host(c int32) *windows.Host { return &t.keys[c].Host }

// Retiring reports whether the nodes of class c carry the retiring label.
func (t *Table) Retiring(c int32) bool { return t.keys[c].Retiring }

// AnyRetiring reports whether some node of the table is retiring.
func (t *Table) AnyRetiring() bool { return t != nil && t.retiring }

// Names are the names of the nodes of class c. The set is shared: it must
// not be written.
func (t *Table) Names(c int32) sets.Set[string] { return t.names[c] }
