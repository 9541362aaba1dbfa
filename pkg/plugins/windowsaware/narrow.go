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
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	fwk "k8s.io/kube-scheduler/framework"
	podutil "k8s.io/kubernetes/pkg/api/v1/pod"

	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// narrow returns the names of the nodes of the snapshot that can run a pod
// needing r, or nil when narrowing would not pay or would hide reasons: for
// a pod that is not a Windows pod, for a pod an earlier attempt left
// unschedulable, when more than half of the nodes fit, or when none does.
// For a pod that Score would rank, it also sets r.uniformScore when every
// node that fits scores alike, so that PreScore can skip scoring.
//
// A Windows pod fits a small share of a mixed cluster: a pool of 200 nodes
// of its build among 5,000. Left alone, the scheduler runs every plugin's
// Filter on every node to find them. Named, the scheduler filters those
// alone; the others are reported as "node(s) didn't satisfy plugin(s)
// [WindowsAware]". Linux pods are not narrowed: they fit most nodes of a
// mixed cluster, and the scheduler stops filtering once it has found
// enough feasible nodes. Nor is a pod that an earlier attempt left
// unschedulable: its next attempt runs Filter on every node, so that its
// FailedScheduling event says of every node why it does not fit.
//
// The names come from the class table's sets when it holds as many nodes
// as the snapshot: the union of the sets of the classes that fit, built
// once per table generation for the pods that fit the same classes, with
// no walk over the nodes (the framework copies the set it is given). A
// node changed since the table was last brought up to date is then judged
// by its old class: named when it no longer fits (Filter, which reads the
// snapshot's object, rejects it) or left out when it has just come to fit
// (the pod waits for another attempt). Neither places a pod where it
// cannot run. Otherwise, as while the informer delivers the first nodes,
// every node is looked at.
func (pl *WindowsAware) narrow(r *requirements, pod *v1.Pod, nodes []fwk.NodeInfo) sets.Set[string] {
	scored := r.scores != nil // judgeClasses ranks the classes of a pod Score ranks
	narrowing := r.OS() == windows.OSWindows && !wasUnschedulable(pod)
	if len(nodes) == 0 || (!scored && !narrowing) {
		return nil
	}
	var f fitting
	if r.classes.HoldsAll(len(nodes)) {
		f = fittingByClass(r)
	} else {
		f = pl.fittingByNode(r, nodes)
	}
	r.uniformScore = scored && f.uniform
	if !narrowing || f.count == 0 || 2*f.count > len(nodes) {
		return nil
	}
	return f.names()
}

// fitting describes the nodes that can run a pod.
type fitting struct {
	count   int
	uniform bool // every one of them has the same raw score
	names   func() sets.Set[string]
}

// fittingByClass reads the nodes that fit off the class table's sets.
func fittingByClass(r *requirements) fitting {
	t := r.classes
	var classes []int32
	f := fitting{uniform: !r.Target().HasRevision}
	first := int64(-1)
	for c, fit := range r.verdicts {
		if fit != windows.Fits || len(t.Names(int32(c))) == 0 {
			continue
		}
		classes = append(classes, int32(c))
		f.count += len(t.Names(int32(c)))
		if r.scores != nil {
			if first >= 0 && r.scores[c] != first {
				f.uniform = false
			}
			first = r.scores[c]
		}
	}
	f.names = func() sets.Set[string] { return t.Union(classes, f.count) }
	return f
}

// fittingByNode looks at every node of the snapshot: by its class where
// the table holds its object, by its labels where not.
func (pl *WindowsAware) fittingByNode(r *requirements, nodes []fwk.NodeInfo) fitting {
	scored := r.scores != nil // judgeClasses ranks the classes of a pod Score ranks
	fits := make([]int32, 0, len(nodes)/4)
	f := fitting{uniform: !r.Target().HasRevision}
	first := int64(-1)
	for i, ni := range nodes {
		node := ni.Node()
		c, known := r.classes.Class(node)
		var fit windows.Fit
		var score int64
		switch {
		case known && scored:
			fit, score = r.verdicts[c], r.scores[c]
		case known:
			fit = r.verdicts[c]
		default:
			host := podneeds.HostOf(node)
			fit, score = r.Verdict(&host), r.score(&host, podneeds.Retiring(node))
		}
		if fit != windows.Fits {
			continue
		}
		fits = append(fits, int32(i))
		if first >= 0 && score != first {
			f.uniform = false
		}
		first = score
	}
	f.count = len(fits)
	f.names = func() sets.Set[string] {
		names := make(sets.Set[string], len(fits))
		for _, i := range fits {
			names.Insert(nodes[i].Node().Name)
		}
		return names
	}
	return f
}

// wasUnschedulable reports whether an earlier scheduling attempt marked the
// pod unschedulable.
func wasUnschedulable(pod *v1.Pod) bool {
	_, c := podutil.GetPodCondition(&pod.Status, v1.PodScheduled)
	return c != nil && c.Status == v1.ConditionFalse && c.Reason == v1.PodReasonUnschedulable
}
