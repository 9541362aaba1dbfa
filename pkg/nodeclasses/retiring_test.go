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
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

func retiringNode(n *v1.Node, value string) *v1.Node {
	n.Labels[wellknown.LabelRetiring] = value
	return n
}

// TestRetiringIsPartOfTheClass: nodes alike but for the retiring label are
// of two classes, and labelling a node moves it, so that Score finds the
// flag by the node's class.
func TestRetiringIsPartOfTheClass(t *testing.T) {
	var (
		old      = fixture.WindowsNode("old", "10.0.17763")
		oldRetd  = retiringNode(fixture.WindowsNode("old", "10.0.17763"), "true") // the same node, labelled
		other    = fixture.WindowsNode("other", "10.0.17763")
		notTrue  = retiringNode(fixture.WindowsNode("nt", "10.0.17763"), "yes")
		linuxRet = retiringNode(fixture.LinuxNode("l"), "true")
	)
	tests := []struct {
		name       string
		batches    [][]nodeChange
		node       *v1.Node
		wantRetire bool
		wantAny    bool
		// wantWith names the nodes that share node's class.
		wantWith []string
	}{
		{name: "unlabelled", batches: [][]nodeChange{{{new: old}, {new: other}}}, node: old, wantWith: []string{"old", "other"}},
		{name: "labelled apart from its build's class", batches: [][]nodeChange{{{new: old}, {new: other}}, {{old: old, new: oldRetd}}}, node: oldRetd, wantRetire: true, wantAny: true, wantWith: []string{"old"}},
		{name: "a value other than true", batches: [][]nodeChange{{{new: notTrue}, {new: other}}}, node: notTrue, wantWith: []string{"nt", "other"}},
		{name: "a linux node", batches: [][]nodeChange{{{new: linuxRet}}}, node: linuxRet, wantRetire: true, wantAny: true, wantWith: []string{"l"}},
		{name: "the last retiring node gone", batches: [][]nodeChange{{{new: oldRetd}, {new: other}}, {{old: oldRetd}}}, node: other, wantWith: []string{"other"}},
		{name: "the label removed", batches: [][]nodeChange{{{new: oldRetd}, {new: other}}, {{old: oldRetd, new: old}}}, node: old, wantWith: []string{"old", "other"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New()
			var table *Table
			for _, batch := range tt.batches {
				for _, ch := range batch {
					c.queue(ch)
				}
				table = c.Current()
			}
			cl, ok := table.Class(tt.node)
			if !ok {
				t.Fatalf("node %s not in the table", tt.node.Name)
			}
			if got := table.Retiring(cl); got != tt.wantRetire {
				t.Errorf("Retiring = %v, want %v", got, tt.wantRetire)
			}
			if got := table.AnyRetiring(); got != tt.wantAny {
				t.Errorf("AnyRetiring = %v, want %v", got, tt.wantAny)
			}
			if got := namesByClass(table)[cl]; !slices.Equal(got, tt.wantWith) {
				t.Errorf("class of %s names %v, want %v (sorted)", tt.node.Name, got, tt.wantWith)
			}
		})
	}
}
