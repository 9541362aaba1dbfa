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
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"

	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// RuntimeClassLookup finds a RuntimeClass by name; nil and no error when
// there is none to be found.
type RuntimeClassLookup func(ctx context.Context, name string) (*nodev1.RuntimeClass, error)

// Explainer asks the decision of one profile (package podneeds, which the
// scheduler's plugins call too) about pod templates.
type Explainer struct {
	Decider *podneeds.Decider
	// TaintComparisonOperators follows the scheduler's feature gate of
	// that name, for how tolerations match taints.
	TaintComparisonOperators bool
	// Profile is the profile's schedulerName.
	Profile string
	// RuntimeClass finds the RuntimeClasses templates name; nil finds none.
	RuntimeClass RuntimeClassLookup
	// Nodes are the cluster's nodes; nil when no cluster was given.
	Nodes []*v1.Node
	// Facts, when set, are what registries list of the images, under the
	// profile's imageResolution; Resolve asks the registries about one
	// pod's images first, and blocks until they answer. Without them,
	// images are decided by their tags.
	Facts   podneeds.Facts
	Resolve func(ctx context.Context, pod *v1.Pod) error
}

// Explain reports on every template.
func (e *Explainer) Explain(ctx context.Context, templates []Template) (*Report, error) {
	report := &Report{Profile: e.Profile, Templates: []TemplateReport{}, Nodes: len(e.Nodes)}
	groups := GroupNodes(e.Nodes)
	pods := make([]*v1.Pod, len(templates))
	for i := range templates {
		pods[i] = templates[i].Pod
	}
	e.prefetch(ctx, pods)
	for _, t := range templates {
		tr, err := e.explain(ctx, t, groups)
		if err != nil {
			return nil, err
		}
		switch {
		case tr.Conflict != nil:
			report.Conflicts++
		case tr.Nodes != nil && tr.Nodes.Fit == 0:
			report.NoNode++
		}
		tr.Fixes = e.fixes(&tr)
		if t.Kind == "DaemonSet" && t.Source == LiveSource && e.Nodes != nil {
			if tr.DaemonSet, err = e.JudgeDaemonSet(ctx, t); err != nil {
				return nil, err
			}
		}
		report.Templates = append(report.Templates, tr)
	}
	return report, nil
}

func (e *Explainer) explain(ctx context.Context, t Template, groups []NodePool) (TemplateReport, error) {
	pod := t.Pod.DeepCopy()
	tr := TemplateReport{Source: t.Source, Kind: t.Kind, Namespace: t.Namespace, Name: t.Name, SchedulerName: pod.Spec.SchedulerName}
	if tr.SchedulerName == "" {
		tr.SchedulerName = v1.DefaultSchedulerName // as the API server defaults it
	}
	tr.PlacedByProfile = tr.SchedulerName == e.Profile
	if t.Admitted {
		tr.Published = publishedOf(pod)
	}

	var rc *nodev1.RuntimeClass
	if name := pod.Spec.RuntimeClassName; name != nil && *name != "" {
		var err error
		if e.RuntimeClass != nil {
			if rc, err = e.RuntimeClass(ctx, *name); err != nil {
				return tr, fmt.Errorf("%s %s: RuntimeClass %q: %w", t.Kind, t.Name, *name, err)
			}
		}
		tr.RuntimeClass = &RuntimeClassReport{Name: *name, Found: rc != nil}
		if rc != nil && rc.Scheduling != nil {
			tr.RuntimeClass.NodeSelector = rc.Scheduling.NodeSelector
		}
		if rc != nil && !t.Admitted {
			if err := mergeRuntimeClass(pod, rc); err != nil {
				tr.Conflict = &ConflictReport{Kind: ConflictKindRuntimeClass, Message: err.Error(), RejectedBy: RejectedByAdmission}
				return tr, nil
			}
		}
	}

	d, unresolved := e.decide(ctx, pod)
	tr.Unresolved = unresolved
	if d.Conflict() != "" {
		tr.Conflict = &ConflictReport{Kind: string(d.ConflictKind()), Message: d.Conflict(), RejectedBy: RejectedByScheduler}
		tr.HostProcess = d.HostProcess()
		tr.Nodes = e.judgeNodes(d, pod, groups)
		return tr, nil
	}
	tr.OS, tr.OSSource, tr.HostProcess = d.OS(), string(d.OSSource()), d.HostProcess()
	tr.OSFrom = osFrom(d, pod, rc)
	for _, img := range d.Images() {
		tr.Images = append(tr.Images, imageReport(img))
	}
	if d.OS() == windows.OSWindows {
		tr.HostBuilds, tr.AnyBuild = e.hostBuilds(d)
	}
	if !d.Target().IsZero() {
		tr.PreferredBuild = d.Target().Build.String()
	}
	tr.Nodes = e.judgeNodes(d, pod, groups)
	tr.Retiring = retiringOf(tr.Nodes)
	return tr, nil
}

// decide asks the registries about the pod's images, when the explainer
// resolves, and decides the pod; unresolved is why a registry did not
// answer.
func (e *Explainer) decide(ctx context.Context, pod *v1.Pod) (d *podneeds.Decision, unresolved string) {
	if e.Resolve != nil {
		if err := e.Resolve(ctx, pod); err != nil {
			unresolved = err.Error()
		}
	}
	return e.Decider.Decide(pod, e.Facts), unresolved
}

// osFrom says in words where the decision's OS came from.
func osFrom(d *podneeds.Decision, pod *v1.Pod, rc *nodev1.RuntimeClass) string {
	switch d.OSSource() {
	case podneeds.SourceSpec:
		return ".spec.os.name"
	case podneeds.SourceTag, podneeds.SourceRegistry:
		for _, img := range d.Images() {
			if img.Windows && img.Source == d.OSSource() {
				if d.OSSource() == podneeds.SourceTag {
					return "the name of image " + img.Ref
				}
				return "the platforms the registry lists for image " + img.Ref
			}
		}
	case podneeds.SourceHostProcess:
		return "securityContext.windowsOptions.hostProcess"
	case podneeds.SourceSelector:
		from := "the pod's required node selector or affinity on " + v1.LabelOSStable
		if rc != nil && rc.Scheduling != nil {
			if _, ok := rc.Scheduling.NodeSelector[v1.LabelOSStable]; ok {
				from += fmt.Sprintf(" (set by RuntimeClass %s)", rc.Name)
			}
		}
		return from
	case podneeds.SourceDefault:
		return "defaultOS of the WindowsAware args"
	case podneeds.SourceDaemonSet:
		return "the node its DaemonSet pins it to (defaultOS does not apply)"
	}
	return string(d.OSSource())
}

func imageReport(img podneeds.Image) ImageReport {
	r := ImageReport{Image: img.Ref, Windows: img.Windows, Source: string(img.Source)}
	for _, p := range img.Platforms {
		pr := PlatformReport{OS: p.OS, Arch: p.Arch}
		if !p.Version.IsZero() {
			pr.OSVersion = p.Version.Build.String()
			if p.Version.HasRevision {
				pr.OSVersion += fmt.Sprintf(".%d", p.Version.Revision)
			}
			if strings.EqualFold(p.OS, windows.OSWindows) && !slices.Contains(r.Builds, p.Version.Build.String()) {
				r.Builds = append(r.Builds, p.Version.Build.String())
			}
		}
		r.Platforms = append(r.Platforms, pr)
	}
	return r
}

// hostBuilds names the Windows builds whose hosts run the decision, by the
// plugin's own answer.
func (e *Explainer) hostBuilds(d *podneeds.Decision) (builds []string, anyBuild bool) {
	hosts, every := d.HostBuilds()
	if every {
		return nil, true
	}
	for _, b := range hosts {
		builds = append(builds, b.String())
	}
	return builds, false
}
