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

package explain

import (
	"context"
	"fmt"
	"io"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/pkg/wellknown"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// RetiringReport is how the nodes labelled retiring (wellknown.LabelRetiring)
// bear on a pod that some of them run. The label never filters: Score only
// ranks those nodes last, so a pod that no other node runs still lands on
// them, and stays there while its pool drains.
type RetiringReport struct {
	// Fit counts the retiring nodes that run the pod, Others the nodes
	// that run it and are not retiring.
	Fit    int `json:"fit"`
	Others int `json:"others"`
	// Stays is set when no node but retiring ones runs the pod.
	Stays bool `json:"stays"`
	// Builds are the Windows builds of the retiring nodes that run it.
	Builds []string `json:"builds,omitempty"`
}

// retiringOf reads the retiring nodes' part from a pod's node report; nil
// when no retiring node runs the pod.
func retiringOf(nr *NodeReport) *RetiringReport {
	if nr == nil {
		return nil
	}
	r := &RetiringReport{}
	for _, g := range nr.Groups {
		r.Fit += g.FitRetiring
		if g.FitRetiring > 0 && g.Build != "" && !g.MalformedBuild && !slices.Contains(r.Builds, g.Build) {
			r.Builds = append(r.Builds, g.Build)
		}
	}
	if r.Fit == 0 {
		return nil
	}
	r.Others = nr.Fit - r.Fit
	r.Stays = r.Others == 0
	return r
}

// StaysOnRetiring reports on a pod that runs on a retiring node: whether
// it stays there because no other node runs it. It judges the pod against
// the groups of e.Nodes (GroupNodes(e.Nodes)) by judgeNodes, from what the
// decision knows, without asking registries.
func (e *Explainer) StaysOnRetiring(_ context.Context, pod *v1.Pod, groups []NodePool) *RetiringReport {
	d := e.Decider.Decide(pod, e.Facts)
	if d.Conflict() != "" {
		return nil
	}
	return retiringOf(e.judgeNodes(d, pod, groups))
}

// WhyStays says in words why a pod stays on retiring nodes.
func WhyStays(r *RetiringReport, catalog *windows.Catalog) string {
	if len(r.Builds) == 0 {
		return fmt.Sprintf("only retiring nodes run it (%s=%s)", wellknown.LabelRetiring, wellknown.RetiringValue)
	}
	return fmt.Sprintf("only retiring nodes run it: every node of build %s that runs it is labelled %s=%s",
		catalog.BuildNames(r.Builds), wellknown.LabelRetiring, wellknown.RetiringValue)
}

// writeRetiring says whether the pod leaves the retiring nodes or stays.
func writeRetiring(w io.Writer, r *RetiringReport, catalog *windows.Catalog) {
	switch {
	case r == nil:
	case r.Stays:
		field(w, "retiring", "stays on the %d retiring node(s) that run it: %s; a node that is not retiring of a build that runs it, or images rebuilt for the new build, let it move", r.Fit, WhyStays(r, catalog))
	default:
		field(w, "retiring", "%d retiring node(s) run it too; Score prefers the %d that are not retiring", r.Fit, r.Others)
	}
}
