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
	"maps"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/pkg/inventory"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// WhatIf is what changes when the nodes of a pool become another build.
type WhatIf struct {
	Pool  string   `json:"pool,omitempty"`
	Nodes int      `json:"nodes"`
	From  []string `json:"from"`
	To    string   `json:"to"`
	// Breaks are the pods running on the pool that the new build would
	// not run: restarted there, their containers fail to start (HCS
	// 0xc0370101, "The container operating system does not match the
	// host operating system").
	Breaks []PodPlan `json:"breaks"`
	// Stranded are the pods running on the pool whose images the new
	// build runs but whose pins select no node once the pool moves: the
	// move evicts them, and no node takes them back.
	Stranded []PodPlan `json:"stranded"`
	// Lands are the pods Pending now that a node of the pool runs once it
	// is the new build, and none of it runs now.
	Lands []PodPlan `json:"lands"`
	// NewWorkloads are the workloads (Kind namespace/name) whose next
	// pods a node of the pool runs once it is the new build, and none of
	// it runs now: a rollout, a scale-up or a CronJob's next run lands
	// there.
	NewWorkloads []string `json:"newWorkloads"`
}

// whatIf simulates the nodes of a pool becoming build target, as the
// kubelet reports an upgraded node (its windows-build label and kernel
// version) and AKS its OS SKU, and asks the decision of every pod and
// template about them, before and after: the pods running there that the
// new build would not run, those its pins strand, and the pending pods
// and the workloads that would start landing there. Only pods and
// templates of the explainer's profile land by its decision; the pods on
// the pool are judged whatever placed them.
func (e *Explainer) whatIf(ctx context.Context, m *move, target windows.Build, workloads []*Workload) *WhatIf {
	pool, simulated := m.moving, m.simulated
	w := &WhatIf{Nodes: len(pool), From: buildsOf(pool), To: target.String(), Breaks: []PodPlan{}, Stranded: []PodPlan{}, Lands: []PodPlan{}, NewWorkloads: []string{}}
	byName := make(map[string]*v1.Node, len(pool))
	for _, n := range simulated {
		byName[n.Name] = n
	}
	now := make(map[string]*v1.Node, len(pool))
	for _, n := range pool {
		now[n.Name] = n
	}
	before, after := GroupNodes(pool), GroupNodes(simulated)
	for _, wl := range workloads {
		name := wl.Kind + " " + wl.Name
		for _, p := range wl.Pods {
			if terminal(p) {
				continue
			}
			if node := byName[p.Spec.NodeName]; node != nil {
				d, _, _ := e.decideFor(ctx, p, true)
				if runs, _ := d.RunsOn(now[p.Spec.NodeName]); !runs {
					// By what the plan knows the pod runs on none of the
					// pool's builds (its registry told the scheduler what
					// the plan was not told): the plan lists it as
					// unknown, and the upgrade is not what breaks it.
					continue
				}
				if fits, reason := d.RunsOn(node); !fits {
					w.Breaks = append(w.Breaks, PodPlan{Namespace: p.Namespace, Name: p.Name, Node: p.Spec.NodeName, Workload: name,
						Reason: e.breakReason(d, reason, target)})
				} else if !e.runsOnAny(d, p, m.after) {
					reason := "its nodeSelector, affinity or tolerations admit no node once the pool moves"
					if pins := stalePins(pinsOf(p, nil), []*v1.Node{now[p.Spec.NodeName]}, []*v1.Node{node}); len(pins) > 0 {
						reason = pinWords(pins) + " no node once the pool moves"
					}
					w.Stranded = append(w.Stranded, PodPlan{Namespace: p.Namespace, Name: p.Name, Node: p.Spec.NodeName, Workload: name, Reason: reason})
				}
				continue
			}
			if p.Spec.NodeName != "" || p.Spec.SchedulerName != e.Profile {
				continue
			}
			d, pod, _ := e.decideFor(ctx, p, true)
			if e.runsOnAny(d, pod, after) && !e.runsOnAny(d, pod, before) {
				w.Lands = append(w.Lands, PodPlan{Namespace: p.Namespace, Name: p.Name, Workload: name})
			}
		}
		if wl.Template == nil || wl.Admitted || wl.Template.Spec.SchedulerName != e.Profile {
			continue
		}
		d, pod, _ := e.decideFor(ctx, wl.Template, false)
		if e.runsOnAny(d, pod, after) && !e.runsOnAny(d, pod, before) {
			w.NewWorkloads = append(w.NewWorkloads, fmt.Sprintf("%s %s/%s", wl.Kind, wl.Namespace, wl.Name))
		}
	}
	return w
}

// breakReason says which images of a pod the new build does not run.
func (e *Explainer) breakReason(d *podneeds.Decision, reason string, target windows.Build) string {
	var parts []string
	for _, img := range d.Images() {
		if !img.Windows || e.Decider.Mode().Admits(img.Platforms, windows.OSWindows, "", target) {
			continue
		}
		var builds []string
		for _, p := range img.Platforms {
			if !p.Version.IsZero() {
				builds = append(builds, p.Version.Build.String())
			}
		}
		parts = append(parts, fmt.Sprintf("%s has %s, which %s does not run", img.Ref, e.Decider.Catalog().BuildNames(builds), e.Decider.Catalog().BuildNames([]string{target.String()})))
	}
	if len(parts) == 0 {
		return reason
	}
	return strings.Join(parts, "; ")
}

// Simulate returns the nodes as they are once upgraded to target: their
// node.kubernetes.io/windows-build label and kernel version say target,
// and an AKS OS SKU label of Windows names target's release, as AKS's OS
// move rewrites it; all else is theirs. The nodes themselves are not
// changed.
func (e *Explainer) Simulate(nodes []*v1.Node, target windows.Build) []*v1.Node {
	sku := inventory.AKSWindowsSKU(e.Decider.Catalog().ReleaseName(target.String()))
	out := make([]*v1.Node, len(nodes))
	for i, n := range nodes {
		sim := *n
		sim.Labels = maps.Clone(n.Labels)
		if sim.Labels == nil {
			sim.Labels = map[string]string{}
		}
		sim.Labels[v1.LabelWindowsBuild] = target.String()
		if have := sim.Labels[wellknown.LabelAKSOSSKU]; sku != "" && strings.HasPrefix(have, "Windows") {
			sim.Labels[wellknown.LabelAKSOSSKU] = sku
		}
		sim.Status.NodeInfo.KernelVersion = target.String()
		out[i] = &sim
	}
	return out
}
