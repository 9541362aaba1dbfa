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
	"errors"
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/windows-aware/windows-aware/pkg/windows"
)

// Unschedulable reasons, constant so that the scheduler aggregates them as
// "0/N nodes are available: 3 node(s) didn't match Pod's OS, ...".
const (
	ErrReasonOS             = "node(s) didn't match Pod's OS"
	ErrReasonBuild          = "node(s) had an incompatible Windows build"
	ErrReasonNoBuild        = "node(s) didn't report a Windows build"
	ErrReasonMalformedBuild = "node(s) had a malformed Windows build label"
)

// Each reason lives in a slice of its own, capped at its length, so that a
// rejection costs one allocation (the Status) and nothing the framework
// appends to a Status can write into it.
var (
	reasonsOS             = []string{ErrReasonOS}[:1:1]
	reasonsBuild          = []string{ErrReasonBuild}[:1:1]
	reasonsNoBuild        = []string{ErrReasonNoBuild}[:1:1]
	reasonsMalformedBuild = []string{ErrReasonMalformedBuild}[:1:1]
)

// preFilterStateKey is where PreFilter leaves a pod's requirements for
// Filter, Score and OSTaintToleration.
const preFilterStateKey fwk.StateKey = "PreFilter" + Name

// Clone returns the state itself: requirements never change once worked out.
func (r *requirements) Clone() fwk.StateData { return r }

// PreFilter works out what the pod needs of a node, once, and for a Windows
// pod names the nodes that can run it (see narrow).
func (pl *WindowsAware) PreFilter(_ context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	r, err := pl.requirementsOf(pod)
	if err != nil {
		var conflict *conflictError
		if errors.As(err, &conflict) {
			return nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, conflict.msg)
		}
		return nil, fwk.AsStatus(err)
	}
	if r.needsNothing() {
		return nil, fwk.NewStatus(fwk.Skip)
	}
	names, allTarget := pl.narrow(r, pod, nodes)
	r.uniformScore = allTarget && !r.target.HasRevision
	state.Write(preFilterStateKey, r)
	if names != nil {
		return &fwk.PreFilterResult{NodeNames: names}, nil
	}
	return nil, nil
}

// PreFilterExtensions returns nil: requirements do not depend on other pods.
func (pl *WindowsAware) PreFilterExtensions() fwk.PreFilterExtensions { return nil }

// Filter rejects a node of the wrong OS, or whose build cannot run the
// pod's images.
func (pl *WindowsAware) Filter(_ context.Context, state fwk.CycleState, _ *v1.Pod, nodeInfo fwk.NodeInfo) *fwk.Status {
	r, err := readRequirements(state)
	if err != nil {
		return fwk.AsStatus(err)
	}
	if reasons := pl.rejection(r, nodeInfo.Node()); reasons != nil {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, reasons...)
	}
	return nil
}

// rejection returns the reasons node cannot run a pod needing r, or nil. It
// reads the OS first: most nodes a pod does not fit are of the other OS.
func (pl *WindowsAware) rejection(r *requirements, node *v1.Node) []string {
	if r.os != "" && !strings.EqualFold(nodeOS(node), r.os) {
		return reasonsOS
	}
	if len(r.builds) == 0 {
		return nil
	}
	b, state := nodeBuild(node)
	return pl.buildRejection(r, b, state)
}

// rejectionOf is rejection on facts already read.
func (pl *WindowsAware) rejectionOf(r *requirements, f *nodeFacts) []string {
	if r.os != "" && !strings.EqualFold(f.os, r.os) {
		return reasonsOS
	}
	if len(r.builds) == 0 {
		return nil
	}
	return pl.buildRejection(r, f.build, f.state)
}

func (pl *WindowsAware) buildRejection(r *requirements, b windows.Build, state buildState) []string {
	switch state {
	case buildMissing:
		return reasonsNoBuild
	case buildMalformed:
		return reasonsMalformedBuild
	}
	if !pl.runsAll(b, r.builds) {
		return reasonsBuild
	}
	return nil
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
