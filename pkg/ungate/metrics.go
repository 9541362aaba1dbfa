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

package ungate

import (
	"sync"

	"k8s.io/component-base/metrics"
)

// Outcome is how a pod's gate was removed.
type Outcome string

// The outcomes of ungating, the values of the metrics' outcome label.
const (
	// OutcomeResolved: the registry told the platforms, and what the
	// profile decides with them was written (or was there already).
	OutcomeResolved Outcome = "resolved"
	// OutcomeFallback: the registry failed or did not answer in time;
	// onFailure TagRules applied.
	OutcomeFallback Outcome = "fallback"
	// OutcomeRejected: the registry failed or did not answer in time;
	// under onFailure Reject nothing was written, and the scheduler keeps
	// the pod unschedulable until the registry answers.
	OutcomeRejected Outcome = "rejected"
	// OutcomeConflict: the pod's own constraints contradict what its
	// images need; nothing was written, and the scheduler reports it.
	OutcomeConflict Outcome = "conflict"
	// OutcomeRefused: the API server refused what publishing writes (an
	// admission policy, a webhook, a quota, validation); the gate was
	// removed alone, and the scheduler's Filter places the pod.
	OutcomeRefused Outcome = "refused"
	// OutcomeRemovedElsewhere: someone else removed the gate (a manual
	// ungate); only the label was removed.
	OutcomeRemovedElsewhere Outcome = "removed_elsewhere"
)

var outcomes = []Outcome{OutcomeResolved, OutcomeFallback, OutcomeRejected, OutcomeConflict, OutcomeRefused, OutcomeRemovedElsewhere}

var (
	// GatedPods is the number of pods carrying the gate, as the
	// controller's informer sees them (on the leader; 0 elsewhere).
	GatedPods = metrics.NewGauge(&metrics.GaugeOpts{
		Subsystem:      "windows_aware",
		Name:           "gated_pods",
		Help:           "Pods that carry the windows-aware.x-k8s.io/platform scheduling gate now, as the replica that removes gates sees them (0 on the others).",
		StabilityLevel: metrics.ALPHA,
	})
	// GateDuration is how long pods carried the gate, from their creation
	// to the update that removed it.
	GateDuration = metrics.NewHistogramVec(&metrics.HistogramOpts{
		Subsystem:      "windows_aware",
		Name:           "gate_duration_seconds",
		Help:           "Time from a gated pod's creation to the removal of its windows-aware.x-k8s.io/platform scheduling gate, by outcome.",
		Buckets:        []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30, 60, 120, 300},
		StabilityLevel: metrics.ALPHA,
	}, []string{"outcome"})
	// Ungated counts the gates removed, by outcome.
	Ungated = metrics.NewCounterVec(&metrics.CounterOpts{
		Subsystem:      "windows_aware",
		Name:           "ungated_pods_total",
		Help:           "Pods whose windows-aware.x-k8s.io/platform scheduling gate was removed, by outcome: resolved, fallback, rejected, conflict, refused (the constraints refused by the API server, the gate removed alone), removed_elsewhere.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"outcome"})
)

var registerOnce sync.Once

// RegisterMetrics registers the controller's metrics in registry; later
// calls do nothing.
func RegisterMetrics(registry metrics.KubeRegistry) {
	registerOnce.Do(func() {
		registry.MustRegister(GatedPods, GateDuration, Ungated)
		for _, o := range outcomes {
			Ungated.WithLabelValues(string(o)) // every outcome shows, at 0
		}
	})
}
