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

package publish

import (
	"fmt"
	"maps"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/windows-aware/windows-aware/pkg/imagefacts"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// labelBetaOS is the deprecated OS label, which older manifests still
// select on; a template that names it constrains the OS too.
const labelBetaOS = "beta.kubernetes.io/os"

// OutcomeUnknown: a workload's template was left unchanged because only a
// registry knows the OS of one of its images, and admission never waits
// for a registry.
const OutcomeUnknown Outcome = "unknown"

// Why a workload's template is not written. They are the values of the
// webhook's logs.
const (
	skipTemplateOptedOut   = "the workload or its pods opt out"
	skipTemplateControlled = "its controller made it from a template of its own"
	skipTemplateUnchanged  = "the template is unchanged: a write now would start a rollout"
	skipTemplateConstrains = "the template constrains the OS itself"
	skipTemplateBound      = "the template names its node"
	skipTemplateAnyOS      = "the profile places it on any OS"
)

// PublishTemplate writes into the pod template of w, in place, the OS the
// profile decides for the pods it creates: the kubernetes.io/os node selector
// and, for Windows images that agree on their builds, the build affinity, as
// Publish writes them into a pod (no tolerations: who may run where is the
// workload's to say). It records what it wrote in
// wellknown.AnnotationTemplate on w. old is the workload before an UPDATE,
// nil at a CREATE. It returns what the template carries of ours, the outcome,
// and a warning for the user when the template was left unchanged for a
// reason they can act on.
//
// The rules keep the webhook from ever starting a rollout of its own and
// from fighting the workload's owners:
//
//   - A workload made by a controller (a Deployment's ReplicaSet, a
//     CronJob's Job) is left alone: its owner's template is the one to
//     write, and writing a copy would make the two differ for ever.
//   - At an UPDATE, a template equal to the old one is left alone, so that
//     no write of ours changes the template hash or the generation.
//   - A template that differs is written as at a CREATE, after removing
//     what the old workload's record says we wrote before and the old
//     template still held: re-applying the user's original manifest,
//     which lacks it, then gets exactly the old template back (no
//     rollout), and a template whose images changed gets the OS its new
//     images need rather than a stale one. At a CREATE nothing is
//     removed, and neither is what the old template did not hold: a
//     selector the user wrote is theirs, whatever a copied record says.
//   - A template that constrains the OS itself (a kubernetes.io/os
//     selector or affinity term, .spec.os) is never touched.
//   - An image whose OS only its registry knows leaves the template
//     unchanged, with a warning: admission never waits for a registry.
func (p *Publisher) PublishTemplate(w, old workload) (rec wellknown.Record, outcome Outcome, warning string) {
	rec, outcome, warning, _ = p.publishTemplate(w, templateOf(w), old)
	return rec, outcome, warning
}

// publishTemplate is PublishTemplate, with the reason a template was not
// written for the logs.
func (p *Publisher) publishTemplate(w workload, tmpl *v1.PodTemplateSpec, old workload) (rec wellknown.Record, outcome Outcome, warning, reason string) {
	var oldTmpl *v1.PodTemplateSpec
	if old != nil {
		oldTmpl = templateOf(old)
	}
	switch {
	case templateOptedOut(w, tmpl):
		return wellknown.Record{}, OutcomeSkipped, "", skipTemplateOptedOut
	case metav1.GetControllerOf(w) != nil:
		return wellknown.Record{}, OutcomeSkipped, "", skipTemplateControlled
	case oldTmpl != nil && apiequality.Semantic.DeepEqual(oldTmpl, tmpl):
		return wellknown.Record{}, OutcomeSkipped, "", skipTemplateUnchanged
	}
	if oldTmpl != nil {
		if prev, err := wellknown.ParseRecord(old.GetAnnotations()[wellknown.AnnotationTemplate]); err == nil {
			unwrite(&tmpl.Spec, heldOf(prev, &oldTmpl.Spec))
		}
	}
	annotations := w.GetAnnotations()
	delete(annotations, wellknown.AnnotationTemplate)
	w.SetAnnotations(annotations)
	switch {
	case constrainsOS(&tmpl.Spec):
		return wellknown.Record{}, OutcomeSkipped, "", skipTemplateConstrains
	case tmpl.Spec.NodeName != "":
		return wellknown.Record{}, OutcomeSkipped, "", skipTemplateBound
	}
	// The pod the decision reads and writeOS writes: the template's spec,
	// sharing its containers and volumes, which neither changes, and
	// owning what writeOS writes, so that a template of a thousand
	// containers is not copied whole for each review.
	spec := tmpl.Spec
	spec.NodeSelector = maps.Clone(spec.NodeSelector)
	spec.Tolerations = slices.Clone(spec.Tolerations)
	spec.Affinity = spec.Affinity.DeepCopy()
	pod := &v1.Pod{ObjectMeta: *tmpl.ObjectMeta.DeepCopy(), Spec: spec}
	pod.Namespace = w.GetNamespace()
	d := p.decide(pod)
	if c := d.Conflict(); c != "" {
		return wellknown.Record{}, OutcomeConflict, fmt.Sprintf("windows-aware: left the pod template of %s %s without an OS: it contradicts itself: %s", kindOf(w), objectName(w), c), "conflict"
	}
	if image := p.registryOnly(pod, d); image != "" {
		return wellknown.Record{}, OutcomeUnknown, fmt.Sprintf("windows-aware: left the pod template of %s %s without an OS: only its registry knows the OS of image %q, and admission never waits for a registry; set .spec.template.spec.os or a kubernetes.io/os node selector", kindOf(w), objectName(w), image), "unknown"
	}
	if d.OS() == "" {
		return wellknown.Record{}, OutcomeSkipped, "", skipTemplateAnyOS
	}
	// The pods' writer, on the pod made from the template; of what it
	// writes, the template takes the selector and the build affinity.
	rec = wellknown.Record{Source: string(d.OSSource())}
	p.writeOS(pod, d, &rec)
	rec.Tolerations = nil
	tmpl.Spec.NodeSelector, tmpl.Spec.Affinity = pod.Spec.NodeSelector, pod.Spec.Affinity
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[wellknown.AnnotationTemplate] = rec.String()
	w.SetAnnotations(annotations)
	return rec, OutcomeStamped, "", ""
}

// registryOnly names an image of the pod whose OS only its registry can
// tell, when the decision's OS rests on no more than the default or a
// selector: the scheduler would ask the registry before placing such a
// pod, and admission cannot.
func (p *Publisher) registryOnly(pod *v1.Pod, d *podneeds.Decision) string {
	if src := d.OSSource(); src.Declared() || src == podneeds.SourceRegistry {
		return ""
	}
	res := p.resolution
	// Whether the scheduler would wait at all, however briefly: a template
	// is never gated, so gateTimeout plays no part.
	res.GateTimeout = metav1.Duration{Duration: time.Second}
	image, _ := imagefacts.WaitsForRegistry(&res, p.decider, pod)
	return image
}

// templateOptedOut reports whether the workload, or the pods its template
// makes, opt out with wellknown.LabelOptIn=false or
// wellknown.LabelPublish=false: the pod-level opt-out wins over a namespace's
// or the cluster's opt-in.
func templateOptedOut(w workload, tmpl *v1.PodTemplateSpec) bool {
	for _, labels := range []map[string]string{w.GetLabels(), tmpl.Labels} {
		if labels[wellknown.LabelOptIn] == "false" || labels[wellknown.LabelPublish] == "false" {
			return true
		}
	}
	return false
}

// constrainsOS reports whether the pod spec says its OS itself: .spec.os,
// a kubernetes.io/os (or beta.kubernetes.io/os) node selector, or a
// required node affinity term on either label.
func constrainsOS(spec *v1.PodSpec) bool {
	if spec.OS != nil {
		return true
	}
	for _, key := range []string{v1.LabelOSStable, labelBetaOS} {
		if _, set := spec.NodeSelector[key]; set {
			return true
		}
	}
	if spec.Affinity == nil || spec.Affinity.NodeAffinity == nil || spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return false
	}
	for _, term := range spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		if slices.ContainsFunc(term.MatchExpressions, func(e v1.NodeSelectorRequirement) bool {
			return e.Key == v1.LabelOSStable || e.Key == labelBetaOS
		}) {
			return true
		}
	}
	return false
}

// unwrite removes from spec what rec says was written into it and is still
// there as written, and the structures that held nothing else, so that the
// spec is as its author wrote it.
func unwrite(spec *v1.PodSpec, rec wellknown.Record) {
	if rec.OS != "" && spec.NodeSelector[v1.LabelOSStable] == rec.OS {
		delete(spec.NodeSelector, v1.LabelOSStable)
		if len(spec.NodeSelector) == 0 {
			spec.NodeSelector = nil
		}
	}
	if spec.Affinity == nil || spec.Affinity.NodeAffinity == nil {
		return
	}
	na := spec.Affinity.NodeAffinity
	if len(rec.Builds) > 0 && na.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		written := buildIn(rec.Builds)
		terms := na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
		// A term that held our expression alone was ours (requireBuilds
		// made it); a term its author left empty stays.
		ours := func(t v1.NodeSelectorTerm) bool {
			return len(t.MatchFields) == 0 && len(t.MatchExpressions) == 1 && apiequality.Semantic.DeepEqual(t.MatchExpressions[0], written)
		}
		terms = slices.DeleteFunc(terms, ours)
		for i := range terms {
			terms[i].MatchExpressions = slices.DeleteFunc(terms[i].MatchExpressions, func(e v1.NodeSelectorRequirement) bool {
				return apiequality.Semantic.DeepEqual(e, written)
			})
		}
		if len(terms) == 0 {
			na.RequiredDuringSchedulingIgnoredDuringExecution = nil
		} else {
			na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms = terms
		}
	}
	if rec.Preferred != "" {
		written := v1.PreferredSchedulingTerm{Weight: preferredWeight, Preference: v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{buildIn([]string{rec.Preferred})}}}
		na.PreferredDuringSchedulingIgnoredDuringExecution = slices.DeleteFunc(na.PreferredDuringSchedulingIgnoredDuringExecution, func(t v1.PreferredSchedulingTerm) bool {
			return apiequality.Semantic.DeepEqual(t, written)
		})
		if len(na.PreferredDuringSchedulingIgnoredDuringExecution) == 0 {
			na.PreferredDuringSchedulingIgnoredDuringExecution = nil
		}
	}
	if apiequality.Semantic.DeepEqual(*na, v1.NodeAffinity{}) {
		spec.Affinity.NodeAffinity = nil
	}
	if apiequality.Semantic.DeepEqual(*spec.Affinity, v1.Affinity{}) {
		spec.Affinity = nil
	}
}

// heldOf is what of rec a template spec still holds as written: the OS
// selector, the build expression and the preferred build term, each only
// when spec carries it exactly as rec says it was written.
func heldOf(rec wellknown.Record, spec *v1.PodSpec) wellknown.Record {
	held := wellknown.Record{Source: rec.Source}
	if rec.OS != "" && spec.NodeSelector[v1.LabelOSStable] == rec.OS {
		held.OS = rec.OS
	}
	var na *v1.NodeAffinity
	if spec.Affinity != nil {
		na = spec.Affinity.NodeAffinity
	}
	if na == nil {
		return held
	}
	if len(rec.Builds) > 0 && na.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		written := buildIn(rec.Builds)
		for _, t := range na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			if slices.ContainsFunc(t.MatchExpressions, func(e v1.NodeSelectorRequirement) bool { return apiequality.Semantic.DeepEqual(e, written) }) {
				held.Builds = rec.Builds
				break
			}
		}
	}
	if rec.Preferred != "" {
		written := v1.PreferredSchedulingTerm{Weight: preferredWeight, Preference: v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{buildIn([]string{rec.Preferred})}}}
		if slices.ContainsFunc(na.PreferredDuringSchedulingIgnoredDuringExecution, func(t v1.PreferredSchedulingTerm) bool { return apiequality.Semantic.DeepEqual(t, written) }) {
			held.Preferred = rec.Preferred
		}
	}
	return held
}

// objectName names a workload in warnings and logs.
func objectName(w workload) string {
	name := w.GetName()
	if name == "" {
		name = w.GetGenerateName() + "*"
	}
	if w.GetNamespace() == "" {
		return name
	}
	return w.GetNamespace() + "/" + name
}
