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

package reviewgate

import (
	"sync"

	"k8s.io/component-base/metrics"
)

// LimitedReviews counts the reviews the gate answered itself, by path and
// reason: too_large (refused unread), busy, containers and image_bytes
// (admitted unchanged).
var LimitedReviews = metrics.NewCounterVec(
	&metrics.CounterOpts{
		Subsystem:      "windows_aware",
		Name:           "admission_reviews_limited_total",
		Help:           "AdmissionReviews the webhook answered without reading them through, by path and reason: too_large (refused unread, larger than the webhook reads), busy (admitted unchanged: no room for it among the reviews being read), containers and image_bytes (admitted unchanged: past the caps).",
		StabilityLevel: metrics.ALPHA,
	},
	[]string{"path", "reason"},
)

var registerOnce sync.Once

// RegisterMetrics registers the gate's metrics in registry; later calls do
// nothing.
func RegisterMetrics(registry metrics.KubeRegistry) {
	registerOnce.Do(func() { registry.MustRegister(LimitedReviews) })
}
