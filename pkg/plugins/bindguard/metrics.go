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

package bindguard

import (
	"sync"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
)

// What a check found: the values of the result label.
const (
	resultFits   = "fits"
	resultNoRoom = "no_room"
	// resultUnread: the node's pods could not be listed (an error, or
	// past readTimeout), or Reserve left no note; the bind went on.
	resultUnread = "unread"
)

// Checks counts the binds the guard looked at, by result.
var Checks = metrics.NewCounterVec(
	&metrics.CounterOpts{
		Subsystem:      "windows_aware",
		Name:           "bind_guard_checks_total",
		Help:           "Binds BindGuard checked against the pods the API server lists on the node, by result: fits, no_room (the bind was refused and the pod scheduled again), unread (the pods could not be listed in time; the bind went on unguarded).",
		StabilityLevel: metrics.ALPHA,
	},
	[]string{"result"},
)

var (
	registerOnce sync.Once
	series       map[string]metrics.CounterMetric
)

// register registers the metric with the scheduler's registry, once.
func register() {
	registerOnce.Do(func() {
		legacyregistry.MustRegister(Checks)
		series = map[string]metrics.CounterMetric{}
		for _, r := range []string{resultFits, resultNoRoom, resultUnread} {
			series[r] = Checks.WithLabelValues(r)
		}
	})
}

func checked(result string) { series[result].Inc() }
