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
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/windows-aware/windows-aware/internal/fixture"
)

// testNodes are nodes of every class the decision tells apart.
func testNodes() []*v1.Node {
	return []*v1.Node{
		fixture.LinuxNode("linux"),
		fixture.WindowsNode("win2016", "10.0.14393", fixture.WithKernel("10.0.14393.6897")),
		fixture.WindowsNode("win2019", "10.0.17763", fixture.WithKernel("10.0.17763.4131")),
		fixture.WindowsNode("win2022", "10.0.20348", fixture.WithKernel("10.0.20348.2227")),
		fixture.WindowsNode("win2025", "10.0.26100", fixture.WithKernel("10.0.26100.1742")),
		fixture.WindowsNode("win2019-kernel-only", "", fixture.WithKernel("10.0.17763.437")),
		fixture.WindowsNode("win-banana", "banana", fixture.WithKernel("10.0.17763.437")),
	}
}

// TestRebuildPastMaxClasses: many distinct classes do not grow the table
// without bound, and the nodes left keep their classes.
func TestRebuildPastMaxClasses(t *testing.T) {
	c := New()
	var nodes []*v1.Node
	for i := range MaxClasses + 10 {
		n := fixture.WindowsNode(fmt.Sprintf("w%d", i), "10.0.17763", fixture.WithKernel(fmt.Sprintf("10.0.17763.%d", i)))
		nodes = append(nodes, n)
		c.Handler().OnAdd(n, false)
	}
	c.Current()
	for _, n := range nodes[:MaxClasses] {
		c.Handler().OnDelete(n)
	}
	table := c.Current()
	if got := table.Len(); got > MaxClasses {
		t.Fatalf("table keeps %d classes", got)
	}
	for _, n := range nodes[MaxClasses:] {
		cl, ok := table.Class(n)
		if !ok {
			t.Fatalf("node %s lost from the table", n.Name)
		}
		if got := table.Host(cl).Version.Build.String(); got != "10.0.17763" || !table.Names(cl).Has(n.Name) {
			t.Errorf("node %s: class of build %s, named %v", n.Name, got, table.Names(cl).Has(n.Name))
		}
	}
}

// TestClassTableNamesEachClassesNodes: after any sequence of node events,
// each class's set names exactly the nodes the table holds in that class,
// and a generation once published never changes.
func TestClassTableNamesEachClassesNodes(t *testing.T) {
	var (
		a2019    = fixture.WindowsNode("a", "10.0.17763")
		a2019bis = fixture.WindowsNode("a", "10.0.17763") // a status update: a new object, the same facts
		a2022    = fixture.WindowsNode("a", "10.0.20348")
		b2019    = fixture.WindowsNode("b", "10.0.17763")
		bLinux   = fixture.LinuxNode("b")
		c2025    = fixture.WindowsNode("c", "10.0.26100")
	)
	tests := []struct {
		name string
		// batches of events; the table is brought up to date after each.
		batches [][]nodeChange
	}{
		{name: "adds", batches: [][]nodeChange{{{new: a2019}, {new: b2019}, {new: c2025}}}},
		{name: "status update keeps the set", batches: [][]nodeChange{{{new: a2019}}, {{old: a2019, new: a2019bis}}}},
		{name: "relabel moves the name", batches: [][]nodeChange{{{new: a2019}, {new: b2019}}, {{old: a2019, new: a2022}}}},
		{name: "relabel and back in one batch", batches: [][]nodeChange{{{new: a2019}}, {{old: a2019, new: a2022}, {old: a2022, new: a2019bis}}}},
		{name: "delete empties the class", batches: [][]nodeChange{{{new: b2019}}, {{old: b2019}}}},
		{name: "turned into a linux node", batches: [][]nodeChange{{{new: b2019}, {new: a2019}}, {{old: b2019, new: bLinux}}}},
		{name: "deleted and re-added as another build", batches: [][]nodeChange{{{new: a2019}}, {{old: a2019}, {new: a2022}}}},
		{name: "a delete the table never saw an add for", batches: [][]nodeChange{{{new: a2019}}, {{old: b2019}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New()
			var published []*Table
			var frozen []map[int32][]string
			for _, batch := range tt.batches {
				for _, ch := range batch {
					c.queue(ch)
				}
				table := c.Current()
				want := map[int32][]string{}
				for node, id := range table.classOf {
					want[id] = append(want[id], node.Name)
				}
				if diff := cmp.Diff(want, namesByClass(table), cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
					t.Errorf("class sets (-the table's nodes +its sets):\n%s", diff)
				}
				published = append(published, table)
				frozen = append(frozen, namesByClass(table))
			}
			for i, table := range published {
				if diff := cmp.Diff(frozen[i], namesByClass(table)); diff != "" {
					t.Errorf("generation %d changed after it was published (-then +now):\n%s", i, diff)
				}
			}
		})
	}
}

// namesByClass lists the non-empty sets of t, sorted.
func namesByClass(t *Table) map[int32][]string {
	out := map[int32][]string{}
	for id, names := range t.names {
		if len(names) > 0 {
			out[int32(id)] = sets.List(names)
		}
	}
	return out
}

// TestClassUnionsAreBuiltOncePerGeneration: the pods that fit the same
// classes get the same union; another combination, or a new generation,
// gets its own.
func TestClassUnionsAreBuiltOncePerGeneration(t *testing.T) {
	c := New()
	for _, n := range testNodes() {
		c.queue(nodeChange{new: n})
	}
	table := c.Current()
	all := make([]int32, table.Len())
	for i := range all {
		all[i] = int32(i)
	}
	same := func(a, b sets.Set[string]) bool { return reflect.ValueOf(a).Pointer() == reflect.ValueOf(b).Pointer() }

	first := table.Union(all, len(testNodes()))
	if got := sets.List(first); !cmp.Equal(got, sets.List(sets.New(nodeNames(testNodes())...))) {
		t.Fatalf("union of every class = %v", got)
	}
	if !same(first, table.Union(slices.Clone(all), len(testNodes()))) {
		t.Error("a second pod fitting the same classes got a union built again")
	}
	if same(first, table.Union(all[1:], len(testNodes()))) {
		t.Error("another combination of classes got the same union")
	}
	c.queue(nodeChange{new: fixture.WindowsNode("new", "10.0.17763", fixture.WithKernel("10.0.17763.4131"))}) // win2019's class
	next := c.Current()
	if next.Len() != len(all) {
		t.Fatalf("the new node made a class of its own")
	}
	if u := next.Union(all, len(testNodes())+1); same(first, u) || !u.Has("new") {
		t.Errorf("a new generation reused the old union: %v", sets.List(u))
	}
}

func nodeNames(nodes []*v1.Node) []string {
	var names []string
	for _, n := range nodes {
		names = append(names, n.Name)
	}
	return names
}
