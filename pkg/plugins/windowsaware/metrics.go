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

package windowsaware

import (
	"sync"
	"sync/atomic"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"

	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// MetricsSubsystem prefixes the plugin's metrics on the scheduler's
// /metrics: windows_aware_pod_decisions_total and so on.
const MetricsSubsystem = "windows_aware"

// Values of the os label of PodDecisions.
const (
	metricOSAny   = "any"
	metricOSOther = "other"
)

var (
	// PodDecisions counts the pods PreFilter decided, by the OS they need
	// and where that OS came from. A pod counts once per scheduling
	// attempt, as the scheduler's own per-attempt metrics do.
	PodDecisions = metrics.NewCounterVec(
		&metrics.CounterOpts{
			Subsystem:      MetricsSubsystem,
			Name:           "pod_decisions_total",
			Help:           "Scheduling attempts WindowsAware's PreFilter decided, by the OS the pod needs (linux, windows, any) and where that OS came from (spec, tag, registry, hostProcess, selector, default).",
			StabilityLevel: metrics.ALPHA,
		},
		[]string{"os", "source"},
	)
	// PodConflicts counts the pods PreFilter rejected because they
	// contradict themselves, by kind of contradiction.
	PodConflicts = metrics.NewCounterVec(
		&metrics.CounterOpts{
			Subsystem:      MetricsSubsystem,
			Name:           "pod_conflicts_total",
			Help:           "Scheduling attempts WindowsAware's PreFilter rejected because no node can run the pod whatever the cluster holds, by kind (os_vs_image, builds_no_host, tag_two_builds, selector_os, selector_build, other).",
			StabilityLevel: metrics.ALPHA,
		},
		[]string{"kind"},
	)
	// NodesNamed is the size of the node lists PreFilter hands the
	// scheduler when it narrows a Windows pod's search.
	NodesNamed = metrics.NewHistogram(
		&metrics.HistogramOpts{
			Subsystem:      MetricsSubsystem,
			Name:           "prefilter_nodes_named",
			Help:           "Nodes WindowsAware's PreFilter named for a Windows pod whose node list it narrowed; the scheduler filters only those.",
			Buckets:        metrics.ExponentialBuckets(1, 2, 14), // 1 to 8192 nodes
			StabilityLevel: metrics.ALPHA,
		},
	)
	// AutoscalerBlindPods counts the pods PostFilter found invisible to
	// cluster autoscalers: unschedulable while a node their own node
	// selector and tolerations admit was rejected for its OS or build.
	AutoscalerBlindPods = metrics.NewCounter(
		&metrics.CounterOpts{
			Subsystem:      MetricsSubsystem,
			Name:           "autoscaler_blind_pods_total",
			Help:           "Pods left unschedulable while a node their own node selector and tolerations admit was rejected for its OS or Windows build, so that cluster autoscalers misjudge where they fit; each pod counts once.",
			StabilityLevel: metrics.ALPHA,
		},
	)
)

var registerMetrics sync.Once

// Register registers the plugin's metrics in the scheduler's registry, the
// one its /metrics serves. The plugin's constructor calls it; later calls
// do nothing.
func Register() {
	registerMetrics.Do(func() {
		legacyregistry.MustRegister(PodDecisions, PodConflicts, NodesNamed, AutoscalerBlindPods)
		resolveMetrics()
	})
}

// decisionKey is one series of PodDecisions.
type decisionKey struct {
	os     string
	source podneeds.Source
}

// metricSeries are the series of the known label values, resolved once
// after registration: PreFilter increments one of them after a map lookup,
// where WithLabelValues would allocate its variadic slice on every pod.
type metricSeries struct {
	decisions map[decisionKey]metrics.CounterMetric
	conflicts map[podneeds.ConflictKind]metrics.CounterMetric
}

// series is nil until Register has run; nothing is recorded before.
var series atomic.Pointer[metricSeries]

// metricSources are the values of the source label.
var metricSources = []podneeds.Source{podneeds.SourceSpec, podneeds.SourceTag, podneeds.SourceRegistry, podneeds.SourceHostProcess, podneeds.SourceSelector, podneeds.SourceDefault, podneeds.SourceDaemonSet}

func resolveMetrics() {
	s := &metricSeries{decisions: map[decisionKey]metrics.CounterMetric{}, conflicts: map[podneeds.ConflictKind]metrics.CounterMetric{}}
	for _, os := range []string{windows.OSLinux, windows.OSWindows, metricOSAny, metricOSOther} {
		for _, source := range metricSources {
			s.decisions[decisionKey{os, source}] = PodDecisions.WithLabelValues(os, string(source))
		}
	}
	for _, kind := range podneeds.ConflictKinds {
		s.conflicts[kind] = PodConflicts.WithLabelValues(string(kind))
	}
	series.Store(s)
}

// recordDecision counts what PreFilter decided of a pod: its requirements,
// or the conflict that makes it unschedulable.
func recordDecision(r *requirements, err error) {
	s := series.Load()
	if s == nil {
		return
	}
	if err != nil {
		kind := conflictKindOfError(err)
		if c, ok := s.conflicts[kind]; ok {
			c.Inc()
		} else {
			PodConflicts.WithLabelValues(string(kind)).Inc()
		}
		return
	}
	key := decisionKey{metricOS(r.OS()), r.OSSource()}
	if c, ok := s.decisions[key]; ok {
		c.Inc()
	} else {
		PodDecisions.WithLabelValues(key.os, string(key.source)).Inc()
	}
}

// recordNarrowing observes how many nodes PreFilter named.
func recordNarrowing(named int) {
	NodesNamed.Observe(float64(named))
}

// metricOS bounds the os label to a few values: a selector may pin any
// string.
func metricOS(os string) string {
	switch os {
	case windows.OSLinux, windows.OSWindows:
		return os
	case "":
		return metricOSAny
	}
	return metricOSOther
}
