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
	"slices"
	"sync"
	"sync/atomic"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"

	"github.com/windows-aware/windows-aware/pkg/windows"
)

// A tag is a name its publisher may point at another image at any time:
// web:1.4 rebuilt on ltsc2025 no longer runs on the 2022 hosts its earlier
// pods run on. When a tag is resolved again (past the tag TTL) and its
// Windows builds differ from those of the facts it replaces, the resolver
// keeps the change on the tag's entry, in the same credential scope, so
// that the scheduler can tell the next pod that uses it, once.

// AnyBuild stands in a BuildsChange for a Windows platform without
// os.version, which runs on any build.
const AnyBuild = "any"

// BuildsChange is a tag's move to an image of other Windows builds. It is
// shared by the Results that carry it and never written but for its claim.
type BuildsChange struct {
	// Old and New are the Windows builds of the facts replaced and of
	// those read now: distinct, sorted, AnyBuild for a Windows platform
	// without os.version; empty when the image has no Windows platform.
	Old, New []string
	// OldDigest and Digest are the digests the tag pointed at then and now.
	OldDigest, Digest string
	claimed           atomic.Bool
}

// Claim reports true to its first caller alone: the one that tells of the
// change.
func (c *BuildsChange) Claim() bool { return c != nil && c.claimed.CompareAndSwap(false, true) }

// claimedAlready reports whether the change was told.
func (c *BuildsChange) claimedAlready() bool { return c != nil && c.claimed.Load() }

// approxSize is what the change adds to its entry, for the cache's byte
// bound.
func (c *BuildsChange) approxSize() int {
	if c == nil {
		return 0
	}
	n := 96 + len(c.OldDigest) + len(c.Digest)
	for _, b := range c.Old {
		n += 16 + len(b)
	}
	for _, b := range c.New {
		n += 16 + len(b)
	}
	return n
}

// windowsBuilds are the distinct Windows builds of platforms, sorted.
func windowsBuilds(platforms []windows.Platform) []string {
	var out []string
	for _, p := range platforms {
		if p.OS != windows.OSWindows {
			continue
		}
		b := AnyBuild
		if !p.Version.IsZero() {
			b = p.Version.Build.String()
		}
		if !slices.Contains(out, b) {
			out = append(out, b)
		}
	}
	slices.Sort(out)
	return out
}

// buildsChange compares the facts a tag's new resolution replaces with
// the new ones: the change, or, when the Windows builds are the same, the
// change old carries if nobody told of it yet (a later refresh that finds
// the same builds does not make it go untold), else nil.
func buildsChange(old, new Result) *BuildsChange {
	before, after := windowsBuilds(old.Platforms), windowsBuilds(new.Platforms)
	if slices.Equal(before, after) {
		if old.Changed != nil && !old.Changed.claimedAlready() {
			return old.Changed
		}
		return nil
	}
	return &BuildsChange{Old: before, New: after, OldDigest: old.Digest, Digest: new.Digest}
}

// sizeOf is an entry's approximate size with the change it carries.
func (e *entry) sizeOf() int { return e.approxSize() + e.res.Changed.approxSize() }

var (
	buildsChangedTotal = metrics.NewCounter(&metrics.CounterOpts{
		Subsystem:      metricsSubsystem,
		Name:           "image_builds_changed_total",
		Help:           "Tags found, when resolved again, to list other Windows builds than when last read.",
		StabilityLevel: metrics.ALPHA,
	})
	registerBuildsChanged sync.Once
)

func newBuildsChangedMetric() metrics.CounterMetric {
	registerBuildsChanged.Do(func() { legacyregistry.MustRegister(buildsChangedTotal) })
	return buildsChangedTotal
}
