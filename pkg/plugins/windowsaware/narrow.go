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
// cycle to the next, grouped into classes of nodes alike (the same OS and
// build): a pod's verdict is worked out once per class, and a node costs a
// pointer comparison and a slice lookup. An entry is valid for as long as
// the scheduler's snapshot holds the same node object: the scheduler cache
// replaces a node's object on every change, and the entry keeps the old
// object alive, so its address cannot be reused by a newer one.
type nodeFactsCache struct {
	mu      sync.Mutex
	entries []cachedNode      // by position in the snapshot's node list
	classes []nodeFacts       // the distinct facts seen
	classOf map[nodeFacts]int // index into classes
	fits    []bool            // scratch: the verdict of each class for one pod
	fitting []int             // scratch: positions of the nodes that fit
}

type cachedNode struct {
	node  *v1.Node
	class int
}

// maxClasses bounds the cache when labels vary wildly; past it the cache
// starts over.
const maxClasses = 1024

// narrow returns the names of the nodes of the snapshot that can run a pod
// needing r, or nil when narrowing would not pay or would hide reasons: for
// a pod that is not a Windows pod, for a pod an earlier attempt left
// unschedulable, when more than half of the nodes fit, or when none does.
// It also tells whether every node that fits has the pod's target build, in
// which case Score would rank them all alike.
func (pl *WindowsAware) narrow(r *requirements, pod *v1.Pod, nodes []fwk.NodeInfo) (names sets.Set[string], allTarget bool) {
	if r.os != config.OSWindows || len(nodes) == 0 || wasUnschedulable(pod) {
		return nil, false
	}
	c := &pl.nodeFacts
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) != len(nodes) || len(c.classes) > maxClasses {
		c.reset(len(nodes))
	}
	c.fits = c.fits[:0]
	for i := range c.classes {
		c.fits = append(c.fits, pl.rejectionOf(r, &c.classes[i]) == nil)
	}
	c.fitting = c.fitting[:0]
	allTarget = true
	for i, ni := range nodes {
		e := &c.entries[i]
		if node := ni.Node(); e.node != node {
			e.node, e.class = node, c.classFor(factsOf(node))
			if e.class == len(c.fits) {
				c.fits = append(c.fits, pl.rejectionOf(r, &c.classes[e.class]) == nil)
			}
		}
		if c.fits[e.class] {
			c.fitting = append(c.fitting, i)
			allTarget = allTarget && c.classes[e.class].build == r.target.Build
		}
	}
	if len(c.fitting) == 0 || 2*len(c.fitting) > len(nodes) {
		return nil, false
	}
	names = make(sets.Set[string], len(c.fitting))
	for _, i := range c.fitting {
		names.Insert(nodes[i].Node().Name)
	}
	return names, allTarget
}

func (c *nodeFactsCache) reset(n int) {
	c.entries = make([]cachedNode, n)
	c.classes = c.classes[:0]
	c.classOf = map[nodeFacts]int{}
	c.fits = c.fits[:0]
}

// classFor returns the class of facts, adding one if they are new.
func (c *nodeFactsCache) classFor(f nodeFacts) int {
	if i, ok := c.classOf[f]; ok {
		return i
	}
	c.classes = append(c.classes, f)
	c.classOf[f] = len(c.classes) - 1
	return len(c.classes) - 1
}

// wasUnschedulable reports whether an earlier scheduling attempt marked the
// pod unschedulable.
func wasUnschedulable(pod *v1.Pod) bool {
	_, c := podutil.GetPodCondition(&pod.Status, v1.PodScheduled)
	return c != nil && c.Status == v1.ConditionFalse && c.Reason == v1.PodReasonUnschedulable
}
