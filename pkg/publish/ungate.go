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
	"context"
	"fmt"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/imagefacts"
	"github.com/windows-aware/windows-aware/pkg/imageinspect"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// NewResolving returns New's Publisher, whose decisions also read the
// platforms the registries tell: it starts the image resolver of args
// (until ctx ends), reading pull secrets with getSecret (nil for none).
// It is the Publisher of the controller that ungates pods; Resolve asks
// the registries about a pod, and Ungate writes the answer.
func NewResolving(ctx context.Context, profile string, args *config.WindowsAwareArgs, getSecret imageinspect.SecretGetter) (*Publisher, error) {
	p, err := New(profile, args)
	if err != nil {
		return nil, err
	}
	if p.facts, err = imagefacts.Start(ctx, &p.resolution, p.decider, getSecret, nil); err != nil {
		return nil, fmt.Errorf("profile %q: %w", profile, err)
	}
	return p, nil
}

// Resolve waits, at most until ctx ends, for the registries to tell the
// platforms of the pod's images that the scheduler would wait for. The
// error is an *imagefacts.UnresolvedError naming the image and the
// registry's error.
func (p *Publisher) Resolve(ctx context.Context, pod *v1.Pod) error {
	return p.facts.Resolve(ctx, pod)
}

// GateTimeout is the longest a gated pod waits for its registry.
func (p *Publisher) GateTimeout() time.Duration { return p.resolution.GateTimeout.Duration }

// OnFailure is the policy applied to a pod whose registry did not tell.
func (p *Publisher) OnFailure() string { return p.resolution.OnFailure }

// Gated reports whether the pod carries wellknown.GatePlatform.
func Gated(pod *v1.Pod) bool {
	return slices.ContainsFunc(pod.Spec.SchedulingGates, isPlatformGate)
}

func isPlatformGate(g v1.PodSchedulingGate) bool { return g.Name == wellknown.GatePlatform }

// labelGated sets wellknown.LabelGated on a pod that carries
// wellknown.GatePlatform, in place. The label goes wherever the gate is: a
// pod created with the gate already (by hand, by a tool that copies a gated
// pod's spec) would otherwise be found only by the gate remover's periodic
// list of every pod.
func labelGated(pod *v1.Pod) {
	if !Gated(pod) || pod.Labels[wellknown.LabelGated] == "true" {
		return
	}
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels[wellknown.LabelGated] = "true"
}

// Ungate removes wellknown.GatePlatform (and wellknown.LabelGated) from a
// gated pod, in place, and writes what the profile decides now that the
// registries were asked (Resolve), so that a single update of the pod does
// both. resolveErr is what Resolve returned: when the registry did not tell,
// the decision is onFailure's (the tag rules; under Reject nothing is written
// and the scheduler keeps the pod unschedulable, naming the image), and the
// record says so.
//
// What it writes stays within what the API server lets an update change in
// a pod that is still gated before the update: nodeSelector keys added,
// never changed; a required node affinity set where the pod had none, or
// an expression added inside each existing term, never a term added;
// preferred terms (the build's, and the one for nodes that are not
// retiring) and tolerations added. Publish's helpers only add, so
// this holds by construction; the tests check it against the API's own
// validation.
//
// The outcome is OutcomeStamped when constraints were written,
// OutcomeConflict when the pod's own constraints (or onFailure Reject)
// leave the decision to the scheduler, which then reports it, and
// OutcomeSkipped when there was nothing to add or the pod is out of scope.
// In every case the gate is gone; a pod without it is left as it is, but
// for the label. conflict is the decision's message under
// OutcomeConflict, naming the images and builds, for the pod's Event.
func (p *Publisher) Ungate(pod *v1.Pod, resolveErr error) (rec wellknown.Record, outcome Outcome, conflict string) {
	if !RemoveGate(pod) {
		return wellknown.Record{}, OutcomeSkipped, ""
	}
	if p.skipReason(pod) != "" {
		return wellknown.Record{}, OutcomeSkipped, ""
	}
	d := p.decide(pod)
	if d.Conflict() != "" {
		return wellknown.Record{}, OutcomeConflict, d.Conflict()
	}
	var added wellknown.Record
	if d.OS() != "" {
		p.writeOS(pod, d, &added)
		if movable(d, &added) {
			added.AvoidsRetiring = preferStaying(pod)
		}
	}
	rec, _ = wellknown.ParseRecord(pod.Annotations[wellknown.AnnotationPublished]) // what admission wrote; none is fine
	rec.Source = string(sourceOf(d))
	rec.GatedOn = ""
	if resolveErr != nil {
		rec.Fallback = p.resolution.OnFailure
	}
	if rec.OS == "" {
		rec.OS = added.OS
	}
	if len(added.Builds) > 0 {
		rec.Builds = added.Builds
	}
	if added.Preferred != "" {
		rec.Preferred = added.Preferred
	}
	rec.Tolerations = append(rec.Tolerations, added.Tolerations...)
	rec.AvoidsRetiring = rec.AvoidsRetiring || added.AvoidsRetiring
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[wellknown.AnnotationPublished] = rec.String()
	if added.Empty() {
		return rec, OutcomeSkipped, ""
	}
	return rec, OutcomeStamped, ""
}

// RemoveGate removes wellknown.GatePlatform and wellknown.LabelGated from the
// pod, in place, and nothing else: the gate's removal when what Ungate writes
// was refused (the scheduler's Filter places the pod right without it). It
// reports whether the pod carried the gate; other gates stay, in their order.
func RemoveGate(pod *v1.Pod) bool {
	delete(pod.Labels, wellknown.LabelGated)
	if !Gated(pod) {
		return false
	}
	pod.Spec.SchedulingGates = slices.DeleteFunc(pod.Spec.SchedulingGates, isPlatformGate)
	if len(pod.Spec.SchedulingGates) == 0 {
		pod.Spec.SchedulingGates = nil
	}
	return true
}

// sourceOf is where what is written came from: the registry when it told
// the platforms of an image the decision rests on, else the OS's source.
func sourceOf(d *podneeds.Decision) podneeds.Source {
	if slices.ContainsFunc(d.Images(), func(in podneeds.Image) bool { return in.Source == podneeds.SourceRegistry }) {
		return podneeds.SourceRegistry
	}
	return d.OSSource()
}
