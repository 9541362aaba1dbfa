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
	"sync"

	"k8s.io/component-base/metrics"
)

// Admissions counts the pods the webhook was asked about, by outcome.
var Admissions = metrics.NewCounterVec(
	&metrics.CounterOpts{
		Subsystem:      "windows_aware",
		Name:           "admission_pods_total",
		Help:           "Pod admission requests the publish webhook answered, by outcome: stamped, gated, conflict, skipped, error, opted_in, no_scheduler (the opt-in found no scheduler replica renewing its Lease, and the pod kept the stock scheduler). Every pod is admitted.",
		StabilityLevel: metrics.ALPHA,
	},
	[]string{"outcome"},
)

// TemplateAdmissions counts the workloads the templates webhook was asked
// about, by outcome.
var TemplateAdmissions = metrics.NewCounterVec(
	&metrics.CounterOpts{
		Subsystem:      "windows_aware",
		Name:           "admission_templates_total",
		Help:           "Workload admission requests (DaemonSets, Deployments, StatefulSets, ReplicaSets, Jobs, CronJobs) the templates webhook answered, by outcome: stamped, skipped, conflict, unknown, error. Every workload is admitted.",
		StabilityLevel: metrics.ALPHA,
	},
	[]string{"outcome"},
)

var registerOnce sync.Once

// RegisterMetrics registers the webhook's metrics in registry; later calls
// do nothing.
func RegisterMetrics(registry metrics.KubeRegistry) {
	registerOnce.Do(func() {
		registry.MustRegister(Admissions)
		for _, o := range []Outcome{OutcomeStamped, OutcomeGated, OutcomeConflict, OutcomeSkipped, OutcomeError, OutcomeOptedIn, OutcomeNoScheduler} {
			Admissions.WithLabelValues(string(o)) // every outcome shows, at 0
		}
		registry.MustRegister(TemplateAdmissions)
		for _, o := range []Outcome{OutcomeStamped, OutcomeSkipped, OutcomeConflict, OutcomeUnknown, OutcomeError} {
			TemplateAdmissions.WithLabelValues(string(o))
		}
	})
}
