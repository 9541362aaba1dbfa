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

package imageinspect

import (
	"sync"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
)

// The metrics live on the scheduler's /metrics, registered once per
// process like the in-tree scheduler metrics. No label carries an image
// name: cardinality stays bounded whatever pods name.
const metricsSubsystem = "windows_aware"

var (
	resolutionsTotal = metrics.NewCounterVec(&metrics.CounterOpts{
		Subsystem:      metricsSubsystem,
		Name:           "image_resolutions_total",
		Help:           "Image platform resolutions from the registry, by result (resolved or an error class).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"result"})
	resolutionDuration = metrics.NewHistogramVec(&metrics.HistogramOpts{
		Subsystem:      metricsSubsystem,
		Name:           "image_resolution_duration_seconds",
		Help:           "Time to resolve an image's platforms from the registry, by result.",
		Buckets:        metrics.ExponentialBuckets(0.005, 2, 14),
		StabilityLevel: metrics.ALPHA,
	}, []string{"result"})
	cacheLookups = metrics.NewCounterVec(&metrics.CounterOpts{
		Subsystem:      metricsSubsystem,
		Name:           "image_cache_lookups_total",
		Help:           "Lookups of image platforms in the resolver's cache, by result (hit, miss).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"result"})
	cacheEntries = metrics.NewGaugeVec(&metrics.GaugeOpts{
		Subsystem:      metricsSubsystem,
		Name:           "image_cache_entries",
		Help:           "Entries in the resolver's cache, by kind (digest, tag, failed, pending).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"kind"})
	registryRequests = metrics.NewCounterVec(&metrics.CounterOpts{
		Subsystem:      metricsSubsystem,
		Name:           "registry_requests_total",
		Help:           "HTTP requests to registries, by method and status code (or error, refused).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"method", "code"})

	registerMetrics sync.Once
)

// metrics is the resolver's handle on the metrics; the lookup counters are
// bound to their labels once, so that a cache hit counts without
// allocating.
type resolverMetrics struct {
	hits, misses metrics.CounterMetric
}

func newMetrics() *resolverMetrics {
	registerMetrics.Do(func() {
		legacyregistry.MustRegister(resolutionsTotal, resolutionDuration, cacheLookups, cacheEntries, registryRequests)
	})
	return &resolverMetrics{hits: cacheLookups.WithLabelValues("hit"), misses: cacheLookups.WithLabelValues("miss")}
}

func (m *resolverMetrics) request(method, code string) {
	registryRequests.WithLabelValues(method, code).Inc()
}

func (m *resolverMetrics) resolved(result string, seconds float64) {
	resolutionsTotal.WithLabelValues(result).Inc()
	resolutionDuration.WithLabelValues(result).Observe(seconds)
}

func (m *resolverMetrics) entries(digests, tags, failed, pending int) {
	cacheEntries.WithLabelValues("digest").Set(float64(digests))
	cacheEntries.WithLabelValues("tag").Set(float64(tags))
	cacheEntries.WithLabelValues("failed").Set(float64(failed))
	cacheEntries.WithLabelValues("pending").Set(float64(pending))
}
