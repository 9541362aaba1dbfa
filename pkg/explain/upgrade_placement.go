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
	nodev1 "k8s.io/api/node/v1"

	"github.com/windows-aware/windows-aware/pkg/podneeds"
)

// runtimeClassOf is the RuntimeClass a template names, as its pods would
// be admitted with it; why says why its pods cannot be known: the
// RuntimeClass does not exist (the API server refuses them) or could not
// be read. A pod already admitted carries its RuntimeClass's constraints.
func (e *Explainer) runtimeClassOf(ctx context.Context, w *Workload) (rc *nodev1.RuntimeClass, why string) {
	name := w.Template.Spec.RuntimeClassName
	if w.Admitted || name == nil || *name == "" || e.RuntimeClass == nil {
		return nil, ""
	}
	rc, err := e.RuntimeClass(ctx, *name)
	switch {
	case err != nil:
		return nil, fmt.Sprintf("its RuntimeClass %s could not be read: %v", *name, err)
	case rc == nil:
		return nil, fmt.Sprintf("its RuntimeClass %s does not exist: the API server refuses its pods", *name)
	}
	return rc, ""
}

// judgePins looks past the images at what else ties a workload to a
// build. A workload whose images the target runs is ready only when some
// node admits it once the nodes move; when none does but one does today,
// its pins are stale (retarget, with the fix); when none does today
// either, it runs nowhere. A pin the plan cannot read makes it unknown,
// never ready. A workload that needs a rebuild keeps that verdict, with
// the pins the move makes stale beside it.
func (e *Explainer) judgePins(ctx context.Context, wp *WorkloadPlan, w *Workload, d *podneeds.Decision, pod *v1.Pod, m *move) {
	if wp.Verdict != VerdictReady && wp.Verdict != VerdictRebuild {
		return
	}
	rc, why := e.runtimeClassOf(ctx, w)
	if why != "" {
		if wp.Verdict == VerdictReady {
			wp.Verdict, wp.Source, wp.Reason = VerdictUnknown, "", why
		}
		return
	}
	pins := pinsOf(w.Template, rc)
	if wp.Verdict == VerdictRebuild {
		wp.Pins = stalePins(pins, m.windowsNow, m.windowsAfter)
		wp.Fixes = e.retargetFixes(ctx, w.Kind, w.Namespace, w.Name, w.Template, rc, wp.Pins)
		return
	}
	for _, p := range pins {
		if why := unreadablePin(p); why != "" {
			wp.Verdict, wp.Source, wp.Reason = VerdictUnknown, "", why
			return
		}
	}
	if e.runsOnAny(d, pod, m.after) {
		return
	}
	wp.Source = ""
	if wp.Pods > 0 || e.runsOnAny(d, pod, m.now) {
		wp.Verdict = VerdictRetarget
		wp.Pins = stalePins(pins, m.windowsNow, m.windowsAfter)
		wp.Fixes = e.retargetFixes(ctx, w.Kind, w.Namespace, w.Name, w.Template, rc, wp.Pins)
		wp.Reason = "no node admits it once the nodes move: its nodeSelector, affinity or tolerations exclude the moved nodes"
		if len(wp.Pins) > 0 {
			wp.Reason = pinWords(wp.Pins) + " no node once the nodes move"
		}
		return
	}
	wp.Verdict = VerdictNowhere
	wp.Pins = deadPins(pins, m.windowsNow)
	wp.Reason = "no node admits it today: its nodeSelector, affinity or tolerations exclude every Windows node of a build its images run"
	if len(wp.Pins) > 0 {
		wp.Reason = "no node admits it today: " + pinWords(wp.Pins) + " no Windows node"
	}
}

// pinWords names pins as the subject of "select(s)".
func pinWords(pins []Pin) string {
	names := make([]string, len(pins))
	for i, p := range pins {
		names[i] = p.String()
	}
	verb := "selects"
	if len(pins) > 1 {
		verb = "select"
	}
	return strings.Join(names, ", ") + " " + verb
}
