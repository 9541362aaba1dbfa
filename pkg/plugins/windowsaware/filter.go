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
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/windows-aware/windows-aware/pkg/nodeclasses"
	"github.com/windows-aware/windows-aware/pkg/plugins/osmatch"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// Unschedulable reasons, constant so that the scheduler aggregates them as
// "0/N nodes are available: 3 node(s) didn't match Pod's OS, ...".
// They are package podneeds', whose verdicts they name.
const (
	ErrReasonOS             = podneeds.ReasonOS
	ErrReasonBuild          = podneeds.ReasonBuild
	ErrReasonNoBuild        = podneeds.ReasonNoBuild
	ErrReasonMalformedBuild = podneeds.ReasonMalformedBuild
	ErrReasonArch           = podneeds.ReasonArch
)

// reasonsOf holds, by verdict, podneeds' reason of it (the one table of
// them), each in a slice of its own, capped at its length, so that a
// rejection costs one allocation (the Status) and nothing the framework
// appends to a Status can write into it. Fits, verdict 0, has none.
var reasonsOf = func() [][]string {
	out := [][]string{windows.Fits: nil}
	for f := windows.Fits + 1; podneeds.Reason(f) != ""; f++ {
		out = append(out, []string{podneeds.Reason(f)}[:1:1])
	}
	return out
}()

// preFilterStateKey is where PreFilter leaves a pod's requirements for
// Filter, Score and OSTaintToleration.
const preFilterStateKey = osmatch.StateKey

// Clone returns the state itself: requirements never change once worked out.
func (r *requirements) Clone() fwk.StateData { return r }

// PreFilter works out what the pod needs of a node and its verdict on each
// node class, once, and for a Windows pod names the nodes that can run it
// (see narrow).
func (pl *WindowsAware) PreFilter(_ context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	r, err := pl.requirementsOf(pod)
	recordDecision(r, err)
	if err != nil {
		return nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, err.Error())
	}
	if r.NeedsNothing() {
		return nil, fwk.NewStatus(fwk.Skip)
	}
	pl.judgeClasses(r, pl.classes.Current())
	r.complete = r.classes.HoldsAll(len(nodes))
	names := pl.narrow(r, pod, nodes)
	state.Write(preFilterStateKey, r)
	pl.lastCycle.remember(state, r)
	if names != nil {
		recordNarrowing(len(names))
		return &fwk.PreFilterResult{NodeNames: names}, nil
	}
	return nil, nil
}

// judgeClasses works out the pod's verdict on every class of t, and its
// raw score on each when Score may rank them apart: the pod names builds,
// or some class is retiring.
func (pl *WindowsAware) judgeClasses(r *requirements, t *nodeclasses.Table) {
	r.classes = t
	r.verdicts = make([]windows.Fit, t.Len())
	for i := range r.verdicts {
		r.verdicts[i] = r.Verdict(t.Host(int32(i)))
	}
	if !r.NamesBuilds() && !t.AnyRetiring() {
		return
	}
	r.scores = make([]int64, t.Len())
	for i := range r.scores {
		r.scores[i] = r.score(t.Host(int32(i)), t.Retiring(int32(i)))
	}
}

// verdict is the pod's verdict on a node: its class's, or, for a node
// object the class table does not hold yet, the verdict on its labels.
func (pl *WindowsAware) verdict(r *requirements, node *v1.Node) windows.Fit {
	if c, ok := r.classes.Class(node); ok {
		return r.verdicts[c]
	}
	return r.VerdictOnNode(node)
}

// PreFilterExtensions returns nil: requirements do not depend on other pods.
func (pl *WindowsAware) PreFilterExtensions() fwk.PreFilterExtensions { return nil }

// Filter rejects a node of the wrong OS, or whose build cannot run the
// pod's images.
func (pl *WindowsAware) Filter(_ context.Context, state fwk.CycleState, pod *v1.Pod, nodeInfo fwk.NodeInfo) *fwk.Status {
	r, status := pl.readOrWorkOut(state, pod)
	if r == nil {
		return status
	}
	if f := pl.verdict(r, nodeInfo.Node()); f != windows.Fits {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, reasonsOf[f]...)
	}
	return nil
}

// readOrWorkOut returns the requirements PreFilter left, or, where PreFilter
// did not run (a profile that enables the plugin at filter or score alone),
// works them out here, as upstream NodeAffinity does. A nil result comes
// with the status to return: nil when the pod needs nothing checked, a
// rejection when it contradicts itself.
func (pl *WindowsAware) readOrWorkOut(state fwk.CycleState, pod *v1.Pod) (*requirements, *fwk.Status) {
	if r, ok := pl.lastCycle.requirements(state); ok {
		return r, nil
	}
	if r, err := readRequirements(state); err == nil {
		return r, nil
	}
	// Quietly: this runs once per node, so it neither asks the resolver
	// nor records Events (PreFilter, which runs once, does both).
	r, err := pl.requirementsQuiet(pod)
	if err != nil {
		return nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, err.Error())
	}
	if r.NeedsNothing() {
		return nil, nil
	}
	return r, nil
}

func readRequirements(state fwk.CycleState) (*requirements, error) {
	data, err := state.Read(preFilterStateKey)
	if err != nil {
		return nil, fmt.Errorf("reading %q from cycle state: %w", preFilterStateKey, err)
	}
	r, ok := data.(*requirements)
	if !ok {
		return nil, fmt.Errorf("%q holds %T, not requirements", preFilterStateKey, data)
	}
	return r, nil
}
