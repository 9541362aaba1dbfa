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
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// UpgradeInput is what an upgrade of Windows nodes to a build is planned
// from.
type UpgradeInput struct {
	// Target is the build the nodes move to (ParseTarget).
	Target windows.Build
	// Pool is LABEL=VALUE, the nodes that move; "" moves every Windows
	// node of a build older than Target.
	Pool string
	// Nodes are the cluster's nodes.
	Nodes []*v1.Node
	// Workloads are those of the namespaces planned (GroupWorkloads).
	Workloads []*Workload
}

// PlanUpgrade says, for every workload that runs on Windows nodes or
// whose template would, whether the target build runs it (ready), which
// image keeps it off (rebuild), or why that is not known (unknown); which
// pods would block draining the nodes that move; and, for a pool, what
// the what-if of WhatIf finds. Every verdict is the decision's own
// (package podneeds), asked of a host of the target build: nothing here
// judges a build otherwise.
func (e *Explainer) PlanUpgrade(ctx context.Context, in UpgradeInput) (*UpgradePlan, error) {
	moving, err := MovingNodes(in.Nodes, in.Pool, in.Target)
	if err != nil {
		return nil, err
	}
	// Each RuntimeClass is read once however many templates name it.
	pe := *e
	pe.RuntimeClass = onceEach(e.RuntimeClass)
	e = &pe
	plan := &UpgradePlan{Profile: e.Profile, Target: in.Target.String(), TargetRelease: e.Decider.Catalog().ReleaseName(in.Target.String()),
		Pool: in.Pool, Moving: len(moving), From: buildsOf(moving), Nodes: len(in.Nodes), Workloads: []WorkloadPlan{}, Blocking: []PodPlan{},
		Agents: []AgentCoverage{}}

	movingSet := make(map[string]bool, len(moving))
	for _, n := range moving {
		movingSet[n.Name] = true
	}
	windowsNodes := map[string]bool{}
	var staying []*v1.Node
	for _, n := range in.Nodes {
		if strings.EqualFold(podneeds.NodeOS(n), windows.OSWindows) {
			windowsNodes[n.Name] = true
		}
		if !movingSet[n.Name] {
			staying = append(staying, n)
		}
	}
	simulated := e.Simulate(moving, in.Target)
	m := &move{
		moving: moving, simulated: simulated,
		now: GroupNodes(in.Nodes), after: GroupNodes(append(slices.Clone(staying), simulated...)),
		windowsNow: windowsOnly(in.Nodes), windowsAfter: windowsOnly(append(slices.Clone(staying), simulated...)),
	}
	stayingGroups := GroupNodes(staying)
	var poolGroups, simulatedGroups []NodePool
	if in.Pool != "" {
		poolGroups, simulatedGroups = GroupNodes(moving), GroupNodes(simulated)
	}
	host := windows.Host{OS: windows.OSWindows, Arch: archOf(moving), Version: windows.Version{Build: in.Target}, State: windows.BuildKnown}

	templates := make([]*v1.Pod, len(in.Workloads))
	for i, w := range in.Workloads {
		templates[i] = w.Template
	}
	e.prefetch(ctx, templates)
	for _, w := range in.Workloads {
		wp := WorkloadPlan{Kind: w.Kind, Namespace: w.Namespace, Name: w.Name}
		var onMoving []*v1.Pod
		for _, p := range w.Pods {
			if p.Spec.NodeName == "" || terminal(p) {
				continue
			}
			if windowsNodes[p.Spec.NodeName] {
				wp.Pods++
			}
			if movingSet[p.Spec.NodeName] {
				wp.MovingPods++
				onMoving = append(onMoving, p)
			}
		}
		if w.Template == nil {
			if wp.Pods == 0 || (in.Pool != "" && wp.MovingPods == 0) {
				continue
			}
			wp.Verdict, wp.Reason = VerdictUnknown, w.Unreadable
			plan.add(wp)
			continue
		}
		d, pod, unresolved := e.decideFor(ctx, w.Template, w.Admitted)
		// A pod that contradicts itself (images no single host runs
		// together, a selector against its images) runs nowhere, and is
		// listed as such rather than left out.
		nowhere := d.Conflict() != ""
		inScope := d.OS() == windows.OSWindows || wp.Pods > 0 || nowhere
		if in.Pool != "" {
			inScope = wp.MovingPods > 0 || nowhere || (d.OS() == windows.OSWindows && (e.runsOnAny(d, pod, poolGroups) || e.runsOnAny(d, pod, simulatedGroups)))
		}
		if !inScope {
			continue
		}
		e.judgeUpgrade(&wp, d, pod, &host, unresolved)
		e.judgePins(ctx, &wp, w, d, pod, m)
		plan.add(wp)
		switch {
		case len(onMoving) == 0 || e.runsOnAny(d, pod, stayingGroups):
		case wp.Verdict == VerdictRebuild:
			for _, p := range onMoving {
				plan.Blocking = append(plan.Blocking, PodPlan{Namespace: p.Namespace, Name: p.Name, Node: p.Spec.NodeName,
					Workload: w.Kind + " " + w.Name, Reason: e.rebuildReason(&wp)})
			}
		case wp.Verdict == VerdictRetarget:
			for _, p := range onMoving {
				plan.Blocking = append(plan.Blocking, PodPlan{Namespace: p.Namespace, Name: p.Name, Node: p.Spec.NodeName,
					Workload: w.Kind + " " + w.Name, Reason: wp.Reason})
			}
		}
		if w.Kind == "DaemonSet" && !w.Admitted && len(moving) > 0 {
			a := e.coverage(ctx, w, &wp, d, pod, m)
			if a.Loses() {
				plan.Summary.AgentsLosing++
			}
			plan.Agents = append(plan.Agents, a)
		}
	}
	plan.Summary.Blocking = len(plan.Blocking)
	slices.SortFunc(plan.Summary.Namespaces, func(a, b NamespaceSummary) int { return cmp.Compare(a.Namespace, b.Namespace) })
	if in.Pool != "" {
		plan.WhatIf = e.whatIf(ctx, m, in.Target, in.Workloads)
		plan.WhatIf.Pool = in.Pool
	}
	plan.Steer = steer(in.Pool, plan.From)
	return plan, nil
}

// move is what the nodes are before and after the move, as the plan asks
// about them: the nodes that move and the same nodes moved, every node
// grouped before and after, and the Windows nodes before and after.
type move struct {
	moving, simulated        []*v1.Node
	now, after               []NodePool
	windowsNow, windowsAfter []*v1.Node
}

// steer are the commands that label the nodes that move retiring: the
// scheduler's Score then places new pods elsewhere while they move.
func steer(pool string, from []string) []string {
	if pool != "" {
		return []string{fmt.Sprintf("kubectl label nodes -l %s %s=%s", pool, wellknown.LabelRetiring, wellknown.RetiringValue)}
	}
	var out []string
	for _, b := range from {
		out = append(out, fmt.Sprintf("kubectl label nodes -l %s=%s %s=%s", podneeds.LabelWindowsBuild, b, wellknown.LabelRetiring, wellknown.RetiringValue))
	}
	return out
}

// onceEach memoizes a RuntimeClass lookup by name, errors included.
func onceEach(lookup RuntimeClassLookup) RuntimeClassLookup {
	if lookup == nil {
		return nil
	}
	type answer struct {
		rc  *nodev1.RuntimeClass
		err error
	}
	seen := map[string]answer{}
	return func(ctx context.Context, name string) (*nodev1.RuntimeClass, error) {
		a, ok := seen[name]
		if !ok {
			a.rc, a.err = lookup(ctx, name)
			seen[name] = a
		}
		return a.rc, a.err
	}
}

// add counts a workload's verdict in the summary.
func (p *UpgradePlan) add(wp WorkloadPlan) {
	p.Workloads = append(p.Workloads, wp)
	i := slices.IndexFunc(p.Summary.Namespaces, func(n NamespaceSummary) bool { return n.Namespace == wp.Namespace })
	if i < 0 {
		i = len(p.Summary.Namespaces)
		p.Summary.Namespaces = append(p.Summary.Namespaces, NamespaceSummary{Namespace: wp.Namespace})
	}
	ns := &p.Summary.Namespaces[i]
	switch wp.Verdict {
	case VerdictReady:
		p.Summary.Ready++
		ns.Ready++
	case VerdictRebuild:
		p.Summary.Rebuild++
		ns.Rebuild++
	case VerdictRetarget:
		p.Summary.Retarget++
		ns.Retarget++
	case VerdictNowhere:
		p.Summary.Nowhere++
		ns.Nowhere++
	default:
		p.Summary.Unknown++
		ns.Unknown++
	}
}

// MovingNodes are the nodes an upgrade moves to target: those of the pool
// (LABEL=VALUE), which must be Windows nodes, or with no pool every
// Windows node of an older build. A pool that selects no node is an error
// that names the pools there are.
func MovingNodes(nodes []*v1.Node, pool string, target windows.Build) ([]*v1.Node, error) {
	var moving []*v1.Node
	if pool == "" {
		for _, n := range nodes {
			if b, ok := windows.ParseBuild(podneeds.PlatformOf(n).Build); ok && strings.EqualFold(podneeds.NodeOS(n), windows.OSWindows) && b.Compare(target) < 0 {
				moving = append(moving, n)
			}
		}
		return moving, nil
	}
	key, value, ok := strings.Cut(pool, "=")
	if !ok || key == "" || value == "" {
		return nil, fmt.Errorf("--pool %q: want LABEL=VALUE, such as agentpool=win22", pool)
	}
	var other []string
	for _, n := range nodes {
		if n.Labels[key] != value {
			continue
		}
		if !strings.EqualFold(podneeds.NodeOS(n), windows.OSWindows) {
			other = append(other, n.Name)
			continue
		}
		moving = append(moving, n)
	}
	switch {
	case len(other) > 0:
		return nil, fmt.Errorf("--pool %s selects %d node(s) that are not Windows (%s): only Windows nodes move to another build",
			pool, len(other), strings.Join(other[:min(len(other), 3)], ", "))
	case len(moving) == 0:
		return nil, fmt.Errorf("--pool %s: no node has the label %s=%s (the cluster's pools: %s)", pool, key, value, poolsOf(nodes))
	}
	return moving, nil
}

// poolsOf lists the cluster's Windows pools as --pool would name them.
func poolsOf(nodes []*v1.Node) string {
	seen := map[string]bool{}
	for _, n := range nodes {
		if !strings.EqualFold(podneeds.NodeOS(n), windows.OSWindows) {
			continue
		}
		for _, l := range PoolLabels {
			if v := n.Labels[l]; v != "" {
				seen[fmt.Sprintf("%s=%s (%s)", l, v, podneeds.PlatformOf(n).Build)] = true
				break
			}
		}
	}
	if len(seen) == 0 {
		return "no Windows node has a pool label"
	}
	return strings.Join(slices.Sorted(maps.Keys(seen)), ", ")
}

// buildsOf lists the nodes' Windows builds, oldest first.
func buildsOf(nodes []*v1.Node) []string {
	builds := []string{}
	for _, n := range nodes {
		if b := podneeds.PlatformOf(n).Build; b != "" && !slices.Contains(builds, b) {
			builds = append(builds, b)
		}
	}
	slices.SortFunc(builds, podneeds.CompareBuilds)
	return builds
}

// archOf is the nodes' architecture when they share one, else "" (any).
func archOf(nodes []*v1.Node) string {
	arch := ""
	for i, n := range nodes {
		a := n.Labels[v1.LabelArchStable]
		if i > 0 && a != arch {
			return ""
		}
		arch = a
	}
	return arch
}

// terminal reports whether a pod has finished: it holds no node.
func terminal(p *v1.Pod) bool {
	return p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed
}

// decideFor is the decision on a pod or a template (decide), a
// template's RuntimeClass merged in first (mergeRuntimeClass; a
// RuntimeClass that cannot be read or merged is left out). unresolved is
// why a registry did not answer.
func (e *Explainer) decideFor(ctx context.Context, pod *v1.Pod, admitted bool) (d *podneeds.Decision, decided *v1.Pod, unresolved string) {
	if name := pod.Spec.RuntimeClassName; !admitted && name != nil && *name != "" && e.RuntimeClass != nil {
		if rc, err := e.RuntimeClass(ctx, *name); err == nil && rc != nil {
			merged := pod.DeepCopy()
			if err := mergeRuntimeClass(merged, rc); err == nil {
				pod = merged
			}
		}
	}
	d, unresolved = e.decide(ctx, pod)
	return d, pod, unresolved
}

// runsOnAny reports whether some node of the groups runs the pod: the
// decision's fit, then what the pod admits (podAdmits). A group's nodes
// share their platform, so one node's fit stands for all.
func (e *Explainer) runsOnAny(d *podneeds.Decision, pod *v1.Pod, groups []NodePool) bool {
	var affinity nodeaffinity.RequiredNodeAffinity
	read := false
	for _, g := range groups {
		if fits, _ := d.RunsOn(g.Nodes[0]); !fits {
			continue
		}
		if !read {
			affinity, read = nodeaffinity.GetRequiredNodeAffinity(pod), true
		}
		for _, n := range g.Nodes {
			if ok, _, _ := e.podAdmits(d, pod, affinity, n); ok {
				return true
			}
		}
	}
	return false
}

// judgeUpgrade writes the verdict of the decision on a host of the target
// build into wp, with what each image has.
func (e *Explainer) judgeUpgrade(wp *WorkloadPlan, d *podneeds.Decision, pod *v1.Pod, host *windows.Host, unresolved string) {
	if c := d.Conflict(); c != "" {
		wp.Verdict, wp.Reason = VerdictNowhere, "the scheduler places the pod on no build: "+c
		return
	}
	if d.HostProcess() {
		wp.Verdict, wp.Source = VerdictReady, string(podneeds.SourceHostProcess)
		return
	}
	known := map[string]podneeds.Image{}
	for _, img := range d.Images() {
		known[img.Ref] = img
	}
	mode, catalog := e.Decider.Mode(), e.Decider.Catalog()
	var sources, unknown []string
	rebuild := false
	for _, ref := range podneeds.ImageRefs(pod) {
		if slices.ContainsFunc(wp.Images, func(i UpgradeImage) bool { return i.Image == ref }) {
			continue
		}
		ui := UpgradeImage{Image: ref}
		img, ok := known[ref]
		hasWindows := ok && slices.ContainsFunc(img.Platforms, func(p windows.Platform) bool { return strings.EqualFold(p.OS, windows.OSWindows) })
		switch {
		case hasWindows:
			ui.Source = string(img.Source)
			for _, p := range img.Platforms {
				if b := p.Version.Build; strings.EqualFold(p.OS, windows.OSWindows) && !b.IsZero() && !slices.Contains(ui.Builds, b.String()) {
					ui.Builds = append(ui.Builds, b.String())
				}
			}
			if mode.Admits(img.Platforms, windows.OSWindows, host.Arch, host.Version.Build) {
				ui.Verdict = VerdictReady
				if !slices.Contains(sources, ui.Source) {
					sources = append(sources, ui.Source)
				}
			} else {
				ui.Verdict, rebuild = VerdictRebuild, true
				if img.Source == podneeds.SourceTag {
					ui.SiblingTag, _ = catalog.SiblingTag(ref, host.Version.Build)
				}
			}
		default:
			ui.Verdict = VerdictUnknown
			switch {
			case unresolved != "":
				ui.Reason = "its tag names no Windows build, and its registry did not answer: " + unresolved
			case e.Resolve != nil:
				ui.Reason = "its tag names no Windows build, and its registry was not asked (not among imageResolution's registries, or out of its scope)"
			default:
				ui.Reason = "its tag names no Windows build: --resolve asks its registry"
			}
			unknown = append(unknown, ref)
		}
		wp.Images = append(wp.Images, ui)
	}
	switch fit := d.Verdict(host); {
	case !rebuild && len(unknown) > 0 && d.OSSource() == podneeds.SourceDefault:
		// The OS is the profile's default, not the pod's or its images':
		// a pod whose pods run on Windows nodes was placed there by what
		// its registry told the scheduler, which the plan does not know.
		wp.Verdict = VerdictUnknown
		wp.Reason = fmt.Sprintf("image %s: %s", strings.Join(unknown, ", "), wp.Images[slices.IndexFunc(wp.Images, func(i UpgradeImage) bool { return i.Verdict == VerdictUnknown })].Reason)
	case fit != windows.Fits || rebuild:
		wp.Verdict = VerdictRebuild
		if !rebuild {
			wp.Reason = podneeds.Reason(fit)
		}
	case len(unknown) > 0:
		wp.Verdict = VerdictUnknown
		wp.Reason = fmt.Sprintf("image %s: %s", strings.Join(unknown, ", "), wp.Images[slices.IndexFunc(wp.Images, func(i UpgradeImage) bool { return i.Verdict == VerdictUnknown })].Reason)
	case len(sources) == 0:
		// A pod of no particular OS with no Windows image that the pods
		// on Windows nodes run: nothing ties it to a build.
		wp.Verdict, wp.Source = VerdictReady, string(d.OSSource())
	default:
		wp.Verdict, wp.Source = VerdictReady, strings.Join(sources, "+")
	}
}

// rebuildReason names the images the target build does not run, with
// their builds.
func (e *Explainer) rebuildReason(wp *WorkloadPlan) string {
	var parts []string
	for _, i := range wp.Images {
		if i.Verdict == VerdictRebuild {
			parts = append(parts, fmt.Sprintf("%s has %s only", i.Image, e.Decider.Catalog().BuildNames(i.Builds)))
		}
	}
	if len(parts) == 0 {
		return wp.Reason
	}
	return strings.Join(parts, "; ")
}
