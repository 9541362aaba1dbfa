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
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/windows-aware/windows-aware/pkg/podneeds"
)

// coverage says whether a DaemonSet keeps a pod on every node that moves.
// The DaemonSet controller places a pod on each node the template's own
// nodeSelector, affinity and tolerations admit (not its RuntimeClass's,
// kubernetes#111590); the pod runs there when the decision runs it on the
// node and the pod as admitted, RuntimeClass merged, admits the node.
func (e *Explainer) coverage(ctx context.Context, w *Workload, wp *WorkloadPlan, d *podneeds.Decision, pod *v1.Pod, m *move) AgentCoverage {
	a := AgentCoverage{Namespace: w.Namespace, Name: w.Name, Moving: len(m.moving)}
	placement := newDaemonPlacement(w.Template)
	admitted := nodeaffinity.GetRequiredNodeAffinity(pod)
	var placedAfter, imagesOff, runtimeClassOff int
	for i := range m.moving {
		if e.daemonRuns(d, placement, admitted, m.moving[i]) == daemonRunning {
			a.Before++
		}
		switch e.daemonRuns(d, placement, admitted, m.simulated[i]) {
		case daemonRunning:
			a.After++
			placedAfter++
		case daemonImagesOff:
			placedAfter++
			imagesOff++
		case daemonRuntimeClassOff:
			placedAfter++
			runtimeClassOff++
		}
	}
	if a.After == a.Moving {
		return a
	}
	var why []string
	switch {
	case imagesOff > 0:
		why = append(why, fmt.Sprintf("its pods on %d moved node(s) fail to start: %s", imagesOff, e.rebuildReason(wp)))
	case runtimeClassOff > 0:
		why = append(why, fmt.Sprintf("its pods on %d moved node(s) stay Pending: its RuntimeClass's nodeSelector does not admit them", runtimeClassOff))
	}
	if off := a.Moving - placedAfter; off > 0 {
		why = append(why, fmt.Sprintf("the DaemonSet controller places no pod on %d moved node(s): its nodeSelector, affinity or tolerations exclude them", off))
	}
	// The pins that select some of the moving nodes and none once moved,
	// whatever nodes stay: the fix that keeps the agent on the pool.
	rc, _ := e.runtimeClassOf(ctx, w)
	pins := stalePins(pinsOf(w.Template, rc), m.moving, m.simulated)
	if len(pins) > 0 {
		why = append(why, pinWords(pins)+" none of them once moved")
	}
	a.Why = strings.Join(why, "; ")
	a.Fixes = e.retargetFixes(ctx, "DaemonSet", w.Namespace, w.Name, w.Template, rc, pins)
	if imagesOff > 0 {
		for _, img := range wp.Images {
			if img.Verdict == VerdictRebuild && img.SiblingTag != "" {
				a.Fixes = append(a.Fixes, fmt.Sprintf("use %s in place of %s", img.SiblingTag, img.Image))
			}
		}
	}
	return a
}

// daemonOutcome is what becomes of a DaemonSet's pod on a node.
type daemonOutcome int

const (
	daemonNotPlaced daemonOutcome = iota
	daemonRunning
	daemonImagesOff
	daemonRuntimeClassOff
)

// daemonRuns says whether the DaemonSet controller places a pod on a node
// (daemonPlaces), and whether the pod runs there.
func (e *Explainer) daemonRuns(d *podneeds.Decision, placement daemonPlacement, admitted nodeaffinity.RequiredNodeAffinity, n *v1.Node) daemonOutcome {
	if match, tolerated := e.daemonPlaces(placement, n); !match || !tolerated {
		return daemonNotPlaced
	}
	if fits, _ := d.RunsOn(n); !fits {
		return daemonImagesOff
	}
	if match, _ := admitted.Match(n); !match {
		return daemonRuntimeClassOff
	}
	return daemonRunning
}
