package windowsaware

import (
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
)

// A Windows pod fits a small share of a mixed cluster: a pool of 200 nodes
// of its build among 5,000. Left alone, the scheduler runs every plugin's
// Filter on every node to find them. Instead, PreFilter names the nodes that
// can run the pod, and the scheduler filters those alone; the others are
// reported as "node(s) didn't satisfy plugin(s) [WindowsAware]".
//
// Linux pods are not narrowed: they fit most nodes of a mixed cluster, and
// the scheduler stops filtering once it has found enough feasible nodes.

// nodeFactsCache keeps the facts of the snapshot's nodes from one scheduling
// cycle to the next, so that narrowing compares rather than parses. An entry
// is valid for as long as the scheduler's snapshot holds the same node
// object: the scheduler cache replaces a node's object on every change, and
// the entry keeps the old object alive, so its address cannot be reused by a
// newer one.
type nodeFactsCache struct {
	mu      sync.Mutex
	entries []cachedFacts
	fitting []int // scratch: indexes of the nodes that fit
}

type cachedFacts struct {
	node  *v1.Node
	facts nodeFacts
}

// narrow returns the names of the nodes of the snapshot that can run a pod
// needing r, or nil when narrowing would not pay: for a pod that is not a
// Windows pod, when more than half of the nodes fit, or when none does (the
// Filter reasons then tell the user why).
func (pl *WindowsAware) narrow(r *requirements, nodes []fwk.NodeInfo) sets.Set[string] {
	if r.os != config.OSWindows || len(nodes) == 0 {
		return nil
	}
	c := &pl.nodeFacts
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) != len(nodes) {
		c.entries = make([]cachedFacts, len(nodes))
	}
	c.fitting = c.fitting[:0]
	for i, ni := range nodes {
		node := ni.Node()
		e := &c.entries[i]
		if e.node != node {
			e.node, e.facts = node, factsOf(node)
		}
		if pl.rejectionOf(r, &e.facts) == nil {
			c.fitting = append(c.fitting, i)
		}
	}
	if len(c.fitting) == 0 || 2*len(c.fitting) > len(nodes) {
		return nil
	}
	names := make(sets.Set[string], len(c.fitting))
	for _, i := range c.fitting {
		names.Insert(nodes[i].Node().Name)
	}
	return names
}
