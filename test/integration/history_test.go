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

package integration

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
)

// history records, from watches, every version of every node and of every
// pod of one namespace, in the order the API server committed them.
//
// With a single etcd, a resource version is the etcd revision of the
// write: one counter over all writes of all kinds. Comparing the version
// that bound a pod with the versions of its node therefore orders the
// binding against each relabelling exactly as etcd committed them, with
// no clock involved. (Kubernetes calls resource versions opaque to
// clients; these tests rely on the storage they run against and report a
// version that does not parse as a number.)
type history struct {
	mu       sync.Mutex
	nodes    map[string][]nodeVersion
	pods     map[string]*podTrack
	problems []string
	bound    int
	// firstBound is closed when the first pod is seen bound.
	firstBound chan struct{}
}

// nodeVersion is one committed version of a node; node is nil for its
// deletion.
type nodeVersion struct {
	rv   uint64
	seen time.Time
	node *v1.Node
}

// podTrack is what the watch saw of one pod.
type podTrack struct {
	// uids and nodes are the distinct values seen, in order (nodes
	// without the empty one).
	uids  []types.UID
	nodes []string
	// createdRV is the version the pod was first seen at, boundRV the
	// first version seen with a node.
	createdRV, boundRV uint64
	boundSeen          time.Time
	deleted            bool
}

// watchHistory starts recording the nodes and the pods of ns, until the
// test ends. Start it before creating what it should see from the start.
func (e *env) watchHistory(ns string) *history {
	e.t.Helper()
	h := &history{nodes: map[string][]nodeVersion{}, pods: map[string]*podTrack{}, firstBound: make(chan struct{})}

	nodeFactory := informers.NewSharedInformerFactory(e.client, 0)
	_, _ = nodeFactory.Core().V1().Nodes().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { h.recordNode(obj, false) },
		UpdateFunc: func(_, obj any) { h.recordNode(obj, false) },
		DeleteFunc: func(obj any) { h.recordNode(obj, true) },
	})
	podFactory := informers.NewSharedInformerFactoryWithOptions(e.client, 0, informers.WithNamespace(ns))
	_, _ = podFactory.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { h.recordPod(obj, false) },
		UpdateFunc: func(_, obj any) { h.recordPod(obj, false) },
		DeleteFunc: func(obj any) { h.recordPod(obj, true) },
	})
	for _, f := range []informers.SharedInformerFactory{nodeFactory, podFactory} {
		f.Start(e.ctx.Done())
		f.WaitForCacheSync(e.ctx.Done())
	}
	return h
}

func (h *history) parseRV(kind, name, rv string) (uint64, bool) {
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		h.problems = append(h.problems, fmt.Sprintf("%s %s: resource version %q is not a number: %v", kind, name, rv, err))
		return 0, false
	}
	return n, true
}

func (h *history) recordNode(obj any, deleted bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	n, ok := obj.(*v1.Node)
	if !ok {
		// A deletion the watch missed (seen only on a relist).
		if tomb, isTomb := obj.(cache.DeletedFinalStateUnknown); isTomb {
			h.problems = append(h.problems, fmt.Sprintf("node %s: deletion seen only on a relist; its history has a gap", tomb.Key))
		}
		return
	}
	rv, ok := h.parseRV("node", n.Name, n.ResourceVersion)
	if !ok {
		return
	}
	v := nodeVersion{rv: rv, seen: time.Now(), node: n}
	if deleted {
		v.node = nil
	}
	h.nodes[n.Name] = append(h.nodes[n.Name], v)
}

func (h *history) recordPod(obj any, deleted bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p, ok := obj.(*v1.Pod)
	if !ok {
		if tomb, isTomb := obj.(cache.DeletedFinalStateUnknown); isTomb {
			_, name, _ := cache.SplitMetaNamespaceKey(tomb.Key)
			if t := h.pods[name]; t != nil {
				t.deleted = true
			}
		}
		return
	}
	rv, ok := h.parseRV("pod", p.Name, p.ResourceVersion)
	if !ok {
		return
	}
	t := h.pods[p.Name]
	if t == nil {
		t = &podTrack{createdRV: rv}
		h.pods[p.Name] = t
	}
	if deleted {
		t.deleted = true
		return
	}
	if !slices.Contains(t.uids, p.UID) {
		t.uids = append(t.uids, p.UID)
	}
	if p.Spec.NodeName == "" || (len(t.nodes) > 0 && t.nodes[len(t.nodes)-1] == p.Spec.NodeName) {
		return
	}
	t.nodes = append(t.nodes, p.Spec.NodeName)
	if len(t.nodes) == 1 {
		t.boundRV, t.boundSeen = rv, time.Now()
		h.bound++
		if h.bound == 1 {
			close(h.firstBound)
		}
	}
}

// boundCount is how many pods have been seen bound.
func (h *history) boundCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.bound
}

// pod returns a copy of what was seen of a pod (zero if nothing).
func (h *history) pod(name string) podTrack {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.pods[name]
	if t == nil {
		return podTrack{}
	}
	c := *t
	c.uids = slices.Clone(t.uids)
	c.nodes = slices.Clone(t.nodes)
	return c
}

// versions returns a copy of a node's versions, oldest first.
func (h *history) versions(node string) []nodeVersion {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.nodes[node])
}

// problemsSeen returns what the recording could not record faithfully.
func (h *history) problemsSeen() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.problems)
}

// nodeAt returns the version of a node current just before revision rv:
// the node as it stood when a write at rv was committed. It is nil when
// the node did not exist then, and known is false when no version of the
// node was seen before rv at all.
func (h *history) nodeAt(name string, rv uint64) (node *v1.Node, known bool) {
	for _, v := range h.versions(name) {
		if v.rv >= rv {
			break
		}
		node, known = v.node, true
	}
	return node, known
}

// placement is how a bound pod's node stood with respect to the pod.
type placement int

const (
	// placedFitting: the node could take the pod at the revision that
	// bound it.
	placedFitting placement = iota
	// placedOvertaken: the node could take the pod when the scheduler
	// decided, but a later write (relabel, taint, delete) changed that
	// before the binding was committed. kube-scheduler binds what it
	// decided without checking the node again, and its bindings wait
	// their turn behind its client's rate limit, so under load a
	// decision in flight can be overtaken.
	placedOvertaken
	// placedWrong: the node could not take the pod when the scheduler
	// decided, nor at the binding.
	placedWrong
)

// judgeBinding places a bound pod against its node's history: at the
// revision that bound it, and, when decided is set, around the time the
// scheduler decided (the versions the watch saw current within slack of
// it). Without a decision time, the window is the pod's whole pending
// life by revision, from its creation to its binding. why explains a node
// that could not take the pod at the binding.
func (h *history) judgeBinding(t podTrack, nd need, decided time.Time, slack time.Duration) (placement, string) {
	node := t.nodes[0]
	versions := h.versions(node)
	atBinding, _ := h.nodeAt(node, t.boundRV)
	ok, why := nodeRuns(atBinding, nd)
	if ok {
		return placedFitting, ""
	}
	for i, v := range versions {
		if v.rv >= t.boundRV {
			break
		}
		// Version i was current from v.rv (seen at v.seen) to the next
		// version.
		var next *nodeVersion
		if i+1 < len(versions) {
			next = &versions[i+1]
		}
		if decided.IsZero() {
			if next != nil && next.rv <= t.createdRV {
				continue // replaced before the pod existed
			}
		} else if v.seen.After(decided.Add(slack)) || (next != nil && next.seen.Before(decided.Add(-slack))) {
			continue // not current near the decision
		}
		if fits, _ := nodeRuns(v.node, nd); fits {
			return placedOvertaken, why
		}
	}
	if len(versions) == 0 || versions[0].rv >= t.boundRV {
		return placedWrong, "node " + node + " did not exist before the binding"
	}
	return placedWrong, why
}

// describeVersions is a node's history for a failure message: revision,
// time seen and whether it could take a pod that needs nd.
func (h *history) describeVersions(node string, nd need) string {
	var parts []string
	for _, v := range h.versions(node) {
		fits, why := nodeRuns(v.node, nd)
		state := "fits"
		if !fits {
			state = why
		}
		parts = append(parts, fmt.Sprintf("%d@%s: %s", v.rv, v.seen.Format("15:04:05.000"), state))
	}
	return strings.Join(parts, "; ")
}
