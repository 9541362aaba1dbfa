package windowsaware

import (
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	fwk "k8s.io/kube-scheduler/framework"
	podutil "k8s.io/kubernetes/pkg/api/v1/pod"

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
//
// Nor is a pod that an earlier attempt left unschedulable: its next attempt
// runs Filter on every node, so that its FailedScheduling event says of
// every node why it does not fit (a malformed build label, the wrong build)
// rather than lumping them together.

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
// needing r, or nil when narrowing would not pay or would hide reasons: for
// a pod that is not a Windows pod, for a pod an earlier attempt left
// unschedulable, when more than half of the nodes fit, or when none does.
func (pl *WindowsAware) narrow(r *requirements, pod *v1.Pod, nodes []fwk.NodeInfo) sets.Set[string] {
	if r.os != config.OSWindows || len(nodes) == 0 || wasUnschedulable(pod) {
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

// wasUnschedulable reports whether an earlier scheduling attempt marked the
// pod unschedulable.
func wasUnschedulable(pod *v1.Pod) bool {
	_, c := podutil.GetPodCondition(&pod.Status, v1.PodScheduled)
	return c != nil && c.Status == v1.ConditionFalse && c.Reason == v1.PodReasonUnschedulable
}
