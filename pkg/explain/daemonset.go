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
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	v1helper "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
	daemonutil "k8s.io/kubernetes/pkg/controller/daemon/util"

	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// DaemonSetReport is where a DaemonSet's pods go, as the DaemonSet
// controller places them, against what its images can run. A DaemonSet
// is not scheduled like other workloads: the controller picks the nodes
// from the template's own nodeSelector, affinity and tolerations, ignoring
// its RuntimeClass (kubernetes#111590), and every node it picks gets a pod
// whether the pod's images run there or not.
type DaemonSetReport struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// OS is the OS its pods need ("" for any): the decision on the
	// template, its RuntimeClass merged in (mergeRuntimeClass).
	OS     string   `json:"os"`
	Images []string `json:"images,omitempty"`
	// RuntimeClass is the template's, when it names one.
	RuntimeClass string `json:"runtimeClass,omitempty"`
	// Nodes counts the nodes the controller runs a pod on.
	Nodes int `json:"nodes"`
	// Wrong counts, of Nodes, those whose OS or build its images cannot
	// run; WrongOn counts them by platform ("windows 10.0.20348 ×3").
	Wrong   int      `json:"wrong"`
	WrongOn []string `json:"wrongOn,omitempty"`
	// NoWindowsNode is set for a DaemonSet of Windows pods that no Windows
	// node of the cluster gets.
	NoWindowsNode bool `json:"noWindowsNode,omitempty"`
	// Why says what is wrong, and why, in words.
	Why string `json:"why,omitempty"`
	// Patch is the JSON merge patch of the DaemonSet that fixes it, and
	// Fix the kubectl command that applies it; Fix says it in words when
	// no patch of the DaemonSet does.
	Patch string `json:"patch,omitempty"`
	Fix   string `json:"fix,omitempty"`
}

// Finding reports whether the DaemonSet needs a fix.
func (r *DaemonSetReport) Finding() bool { return r.Wrong > 0 || r.NoWindowsNode }

// daemonPlacement is what the DaemonSet controller places a template's
// pods by: the template's required node affinity, and its tolerations with
// those the controller adds to every pod it creates, so that a node's
// condition taints do not keep its daemons off it.
type daemonPlacement struct {
	affinity    nodeaffinity.RequiredNodeAffinity
	tolerations []v1.Toleration
}

func newDaemonPlacement(template *v1.Pod) daemonPlacement {
	// AddOrUpdateDaemonPodTolerations gives spec a new list of
	// tolerations; it never writes into the template's.
	spec := template.Spec
	daemonutil.AddOrUpdateDaemonPodTolerations(&spec)
	return daemonPlacement{affinity: nodeaffinity.GetRequiredNodeAffinity(template), tolerations: spec.Tolerations}
}

// daemonPlaces is the DaemonSet controller's test of a node (its
// predicates, which Kubernetes does not export): whether the template's
// required node affinity matches n, a parse error being no match, and
// whether its tolerations tolerate every taint of n that repels a daemon.
// The controller places a pod where both hold.
func (e *Explainer) daemonPlaces(p daemonPlacement, n *v1.Node) (matches, tolerated bool) {
	matches, _ = p.affinity.Match(n)
	_, untolerated := v1helper.FindMatchingUntoleratedTaint(klog.Background(), n.Spec.Taints, p.tolerations, repels, e.TaintComparisonOperators)
	return matches, !untolerated
}

// repels is the DaemonSet controller's taint filter: only NoSchedule and
// NoExecute taints keep a daemon off a node.
func repels(t *v1.Taint) bool {
	return t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute
}

// JudgeDaemonSet places a DaemonSet's template on e.Nodes by the
// controller's rules (daemonPlaces), and judges every node it picks by the decision; for a DaemonSet
// of Windows pods, it says what keeps it off the Windows nodes when none
// gets a pod. The fix is a merge patch of the template: an OS (and build)
// nodeSelector for the wrong nodes, tolerations of the taints the Windows
// nodes carry for the missed ones.
func (e *Explainer) JudgeDaemonSet(ctx context.Context, t Template) (*DaemonSetReport, error) {
	r := &DaemonSetReport{Namespace: t.Namespace, Name: t.Name}
	template := t.Pod
	created := template.DeepCopy()
	var rc *nodev1.RuntimeClass
	if name := template.Spec.RuntimeClassName; name != nil && *name != "" {
		r.RuntimeClass = *name
		if e.RuntimeClass != nil {
			var err error
			if rc, err = e.RuntimeClass(ctx, *name); err != nil {
				return nil, fmt.Errorf("DaemonSet %s/%s: RuntimeClass %q: %w", t.Namespace, t.Name, *name, err)
			}
		}
		if rc != nil {
			if err := mergeRuntimeClass(created, rc); err != nil {
				r.Why = "RuntimeClass admission rejects its pods: " + err.Error()
				return r, nil
			}
		}
	}
	d := e.Decider.Decide(created, e.Facts)
	r.OS = d.OS()
	for _, img := range d.Images() {
		r.Images = append(r.Images, img.Ref)
	}
	if d.Conflict() != "" {
		// No node runs it: explain says why and how to fix the template.
		r.Why = d.Conflict()
	}

	placement := newDaemonPlacement(template)
	wrong := map[string]int{}
	var wrongOS, wrongBuild bool
	var windowsNodes, windowsRun, selectorOff, buildOff int
	var taints []v1.Taint
	goodBuilds := map[string]bool{}
	for _, n := range e.Nodes {
		win := strings.EqualFold(podneeds.NodeOS(n), windows.OSWindows)
		fits, _ := d.RunsOn(n)
		if win {
			windowsNodes++
			if fits {
				goodBuilds[n.Labels[podneeds.LabelWindowsBuild]] = true
			} else {
				buildOff++
			}
		}
		match, tolerated := e.daemonPlaces(placement, n)
		if match && tolerated {
			r.Nodes++
			if !fits {
				r.Wrong++
				wrong[platformOf(n)]++
				if strings.EqualFold(podneeds.NodeOS(n), r.OS) {
					wrongBuild = true
				} else {
					wrongOS = true
				}
			} else if win {
				windowsRun++
			}
			continue
		}
		switch {
		case !win, !fits:
		case !match:
			selectorOff++
		default:
			// The node would run it but for taints: every one of them
			// it does not tolerate, for the fix.
			for _, nt := range n.Spec.Taints {
				if repels(&nt) && !v1helper.TolerationsTolerateTaint(klog.Background(), placement.tolerations, &nt, e.TaintComparisonOperators) &&
					!slices.ContainsFunc(taints, func(have v1.Taint) bool { return have.MatchTaint(&nt) && have.Value == nt.Value }) {
					taints = append(taints, nt)
				}
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(wrong)) {
		r.WrongOn = append(r.WrongOn, fmt.Sprintf("%s ×%d", k, wrong[k]))
	}
	r.NoWindowsNode = d.Conflict() == "" && r.OS == windows.OSWindows && windowsNodes > 0 && windowsRun == 0

	var why []string
	selector := map[string]string{}
	var add []v1.Toleration
	if r.Wrong > 0 {
		why = append(why, fmt.Sprintf("its pods go to %d node(s) whose OS or build its images cannot run (%s)", r.Wrong, strings.Join(r.WrongOn, ", ")))
		if rc != nil && rc.Scheduling != nil && len(rc.Scheduling.NodeSelector) > 0 {
			why = append(why, fmt.Sprintf("RuntimeClass %s's nodeSelector is not used by the DaemonSet controller (kubernetes#111590): its pods there stay Pending", rc.Name))
		}
		if wrongOS && r.OS != "" && template.Spec.NodeSelector[v1.LabelOSStable] != r.OS {
			selector[v1.LabelOSStable] = r.OS
		}
		if wrongBuild && len(goodBuilds) == 1 {
			for b := range goodBuilds {
				selector[podneeds.LabelWindowsBuild] = b
			}
		}
	}
	if r.NoWindowsNode {
		switch {
		case len(taints) > 0:
			// The fix tolerates the profile's OS taints (osTaints.keys)
			// alone: another taint (tenant=payments:NoSchedule) keeps
			// pods off for a reason of its owner's, and a fix printed to
			// be copied whole must not wave it through. It is named in
			// words instead.
			osTolerations := d.OSTolerations()
			names := make([]string, len(taints))
			var others []string
			for i, nt := range taints {
				names[i] = nt.ToString()
				if !slices.ContainsFunc(osTolerations, func(t v1.Toleration) bool { return t.ToleratesTaint(klog.Background(), &nt, false) }) {
					others = append(others, nt.ToString())
					continue
				}
				tol := v1.Toleration{Key: nt.Key, Operator: v1.TolerationOpEqual, Value: nt.Value, Effect: nt.Effect}
				if nt.Value == "" {
					tol.Operator = v1.TolerationOpExists
				}
				add = append(add, tol)
			}
			w := fmt.Sprintf("it reaches no Windows node: it does not tolerate their taint(s) %s", strings.Join(names, ", "))
			if len(others) > 0 {
				w += fmt.Sprintf("; %s %s not the OS's: the fix does not tolerate %s, ask whoever tainted those nodes",
					strings.Join(others, ", "), map[bool]string{true: "is", false: "are"}[len(others) == 1], map[bool]string{true: "it", false: "them"}[len(others) == 1])
			}
			if rc != nil && rc.Scheduling != nil && len(rc.Scheduling.Tolerations) > 0 {
				w += fmt.Sprintf("; RuntimeClass %s's tolerations do not count, the DaemonSet controller ignores a RuntimeClass (kubernetes#111590)", rc.Name)
			}
			why = append(why, w)
		case selectorOff > 0:
			why = append(why, "it reaches no Windows node: its own nodeSelector or affinity excludes every Windows node of a build it runs")
		case buildOff > 0:
			hosts, _ := e.hostBuilds(d)
			why = append(why, fmt.Sprintf("it reaches no Windows node: no Windows node is of a build its images run (%s)", orAny(e.Decider.Catalog().BuildNames(hosts))))
		}
		if rc != nil && rc.Scheduling != nil {
			for k, v := range rc.Scheduling.NodeSelector {
				if _, ok := template.Spec.NodeSelector[k]; !ok {
					selector[k] = v
				}
			}
		}
		if len(add) > 0 && buildOff > 0 && len(goodBuilds) == 1 && template.Spec.NodeSelector[podneeds.LabelWindowsBuild] == "" {
			// Tolerated, it would reach the Windows nodes of the builds
			// its images cannot run too.
			for b := range goodBuilds {
				selector[podneeds.LabelWindowsBuild] = b
			}
		}
		if template.Spec.NodeSelector[v1.LabelOSStable] == "" && len(add) > 0 {
			// Tolerating the Windows taint alone would let its
			// pods onto the Linux nodes too.
			selector[v1.LabelOSStable] = windows.OSWindows
		}
	}
	if r.Why == "" {
		r.Why = strings.Join(why, "; ")
	}
	var builds []string
	if (wrongBuild || (len(add) > 0 && buildOff > 0)) && len(goodBuilds) > 1 && affinityFree(template) {
		builds = slices.Sorted(maps.Keys(goodBuilds))
	}
	if len(selector) > 0 || len(add) > 0 || len(builds) > 0 {
		r.Patch = templatePatch(selector, builds, template.Spec.Tolerations, add)
		r.Fix = fmt.Sprintf("kubectl -n %s patch daemonset %s --type merge -p '%s'", r.Namespace, r.Name, r.Patch)
	} else if r.Finding() {
		r.Fix = "no patch of the DaemonSet fixes it: " + fixInWords(r, selectorOff > 0)
	}
	return r, nil
}

// fixInWords says what to change when no patch of the template does.
func fixInWords(r *DaemonSetReport, selector bool) string {
	switch {
	case r.NoWindowsNode && selector:
		return "change its nodeSelector or affinity to admit the Windows nodes of a build it runs"
	case r.NoWindowsNode:
		return "retag its image for a build the cluster's Windows nodes run, or add a pool of the build it needs"
	}
	return "its images run on some of these nodes only: give it a node affinity on " + podneeds.LabelWindowsBuild + " of the builds they run"
}

// templatePatch is the JSON merge patch that sets the selector's keys
// and the tolerations: a merge patch replaces a list whole, so it carries
// the template's own tolerations too.
func templatePatch(selector map[string]string, builds []string, have, add []v1.Toleration) string {
	type spec struct {
		NodeSelector map[string]string `json:"nodeSelector,omitempty"`
		Affinity     *v1.Affinity      `json:"affinity,omitempty"`
		Tolerations  []v1.Toleration   `json:"tolerations,omitempty"`
	}
	var p struct {
		Spec struct {
			Template struct {
				Spec spec `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	p.Spec.Template.Spec.NodeSelector = selector
	if len(builds) > 0 {
		p.Spec.Template.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
			NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{
				{Key: podneeds.LabelWindowsBuild, Operator: v1.NodeSelectorOpIn, Values: builds}}}}}}}
	}
	if len(add) > 0 {
		p.Spec.Template.Spec.Tolerations = append(slices.Clone(have), add...)
	}
	b, _ := json.Marshal(p) // maps of strings and tolerations always marshal
	return string(b)
}

// affinityFree reports whether the template has no required node
// affinity: a merge patch of one replaces its terms whole, so the fix
// writes one only where there is none to lose.
func affinityFree(pod *v1.Pod) bool {
	a := pod.Spec.Affinity
	return a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil
}

// platformOf names a node's OS and build.
func platformOf(n *v1.Node) string {
	p := podneeds.PlatformOf(n)
	return strings.TrimSpace(p.OS + " " + p.Build)
}

func orAny(s string) string {
	if s == "" {
		return "any"
	}
	return s
}
