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

	v1 "k8s.io/api/core/v1"
	v1helper "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/imagefacts"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// preferredWeight is the weight of the preferred term for the exact build:
// the most a preference can weigh, as the exact build is what the
// profile's Score ranks first.
const preferredWeight = 100

// Outcome is what publishing did with a pod.
type Outcome string

const (
	// OutcomeStamped: constraints were written.
	OutcomeStamped Outcome = "stamped"
	// OutcomeGated: the scheduling gate was added (and what the tags and
	// .spec decide was written).
	OutcomeGated Outcome = "gated"
	// OutcomeConflict: the pod contradicts itself or the decision; nothing
	// was written, and the scheduler reports the conflict.
	OutcomeConflict Outcome = "conflict"
	// OutcomeSkipped: out of scope, or nothing to add.
	OutcomeSkipped Outcome = "skipped"
	// OutcomeError: the webhook could not read the request; the pod was
	// admitted unchanged.
	OutcomeError Outcome = "error"
	// OutcomeOptedIn: the pod, created in a namespace that opts in, was
	// given the profile as its scheduler.
	OutcomeOptedIn Outcome = "opted_in"
	// OutcomeNoScheduler: the pod would have opted in, but no replica of
	// the profile's scheduler holds its Lease (SchedulerPresence): it keeps
	// the stock scheduler rather than wait Pending for one that is gone.
	OutcomeNoScheduler Outcome = "no_scheduler"
)

// Publisher writes the windows-aware profile's constraints into pods.
type Publisher struct {
	profile string
	// decider is the decision the WindowsAware plugin calls too.
	decider *podneeds.Decider
	// facts are what the registries told, for a Publisher that resolves;
	// nil for one that decides by tags (at admission).
	facts *imagefacts.Facts
	// resolution is the profile's imageResolution args, which say how
	// long a gated pod waits and what applies when its registry fails.
	resolution config.ImageResolution
	// presence tells whether the profile's scheduler runs, for the
	// opt-in; nil: assume it does.
	presence SchedulerPresence
}

// New returns a Publisher for the profile named profile (its
// schedulerName) with the WindowsAware args of that profile, validated by
// podneeds.NewForProfile. It starts no image resolver: at creation no
// registry has been asked, and the pods that would wait for one are gated
// instead.
func New(profile string, args *config.WindowsAwareArgs) (*Publisher, error) {
	decider, err := podneeds.NewForProfile(profile, args)
	if err != nil {
		return nil, err
	}
	return &Publisher{profile: profile, decider: decider, resolution: args.ImageResolution}, nil
}

// decide is the pod's decision, from what the registries told when the
// Publisher resolves.
func (p *Publisher) decide(pod *v1.Pod) *podneeds.Decision {
	if p.facts == nil {
		return p.decider.Decide(pod, nil)
	}
	return p.decider.Decide(pod, p.facts)
}

// Profile is the schedulerName of the pods the publisher changes.
func (p *Publisher) Profile() string { return p.profile }

// Publish writes into pod, in place, what the profile decides about it, only
// adding, and returns what it wrote and the outcome. Pass a copy of a pod
// read from an informer. Nothing is written to a pod out of scope (another
// scheduler's, bound, mirror, DaemonSet, opted out) or whose own constraints
// contradict the decision, but for wellknown.LabelGated on a pod that arrives
// carrying wellknown.GatePlatform without it: whatever else happens, a pod
// that keeps the gate carries the label by which the gate remover finds it
// (labelGated), so that the remover's watch of labelled pods sees it.
func (p *Publisher) Publish(pod *v1.Pod) (wellknown.Record, Outcome) {
	rec, outcome := p.publish(pod)
	labelGated(pod)
	return rec, outcome
}

// publish is Publish without the label, which Publish writes on every pod
// that leaves with the gate, gated here or before.
func (p *Publisher) publish(pod *v1.Pod) (wellknown.Record, Outcome) {
	if p.skipReason(pod) != "" {
		return wellknown.Record{}, OutcomeSkipped
	}
	d := p.decide(pod)
	if d.Conflict() != "" {
		return wellknown.Record{}, OutcomeConflict
	}
	rec := wellknown.Record{Source: string(d.OSSource())}
	gatedOn, waits := imagefacts.WaitsForRegistry(&p.resolution, p.decider, pod)
	if d.OS() != "" && (!waits || d.OSSource().Declared()) {
		p.writeOS(pod, d, &rec)
		if !waits && movable(d, &rec) {
			rec.AvoidsRetiring = preferStaying(pod)
		}
	}
	if waits && !Gated(pod) {
		pod.Spec.SchedulingGates = append(pod.Spec.SchedulingGates, v1.PodSchedulingGate{Name: wellknown.GatePlatform})
		rec.GatedOn = gatedOn
	}
	if rec.Empty() {
		return wellknown.Record{}, OutcomeSkipped
	}
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[wellknown.AnnotationPublished] = rec.String()
	if rec.GatedOn != "" {
		return rec, OutcomeGated
	}
	return rec, OutcomeStamped
}

// writeOS writes the decision's OS: its node selector and the tolerations
// of its taints, and, for a Windows pod with images of known builds (not
// HostProcess, which runs on any build), the builds.
func (p *Publisher) writeOS(pod *v1.Pod, d *podneeds.Decision, rec *wellknown.Record) {
	if _, set := pod.Spec.NodeSelector[v1.LabelOSStable]; !set {
		if pod.Spec.NodeSelector == nil {
			pod.Spec.NodeSelector = map[string]string{}
		}
		pod.Spec.NodeSelector[v1.LabelOSStable] = d.OS()
		rec.OS = d.OS()
	}
	for _, t := range d.OSTolerations() {
		taint := v1.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect}
		if v1helper.TolerationsTolerateTaint(klog.Background(), pod.Spec.Tolerations, &taint, false) {
			continue
		}
		pod.Spec.Tolerations = append(pod.Spec.Tolerations, t)
		rec.Tolerations = append(rec.Tolerations, fmt.Sprintf("%s=%s:%s", t.Key, t.Value, t.Effect))
	}
	if d.OS() != windows.OSWindows || d.HostProcess() {
		return
	}
	hosts, every := d.HostBuilds()
	if every || len(hosts) == 0 {
		return
	}
	builds := make([]string, len(hosts))
	for i, b := range hosts {
		builds[i] = b.String()
	}
	if requireBuilds(pod, builds) {
		rec.Builds = builds
	}
	if len(builds) > 1 && !d.Target().IsZero() && preferBuild(pod, d.Target().Build.String()) {
		rec.Preferred = d.Target().Build.String()
	}
}
