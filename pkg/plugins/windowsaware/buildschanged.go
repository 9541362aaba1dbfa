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
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/pkg/imageinspect"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// A tag whose Windows builds changed since it was last read (its publisher
// pushed another image under it) places new pods by the new builds, while
// the pods created from it before run the old image: a Deployment rolled
// now may land on other hosts than its running pods, or nowhere. The
// resolver notices the change when it reads the tag again, in the
// background; the next pod that uses the tag gets one Warning Event that
// names the image, both sets of builds and both digests.

// tellBuildsChanged records the Event of a tag's change, once for all pods:
// the first PreFilter to claim the change records it. The recorder only
// queues the Event, so this costs the scheduling cycle no I/O.
func (res *resolution) tellBuildsChanged(pod *v1.Pod, ref string, c *imageinspect.BuildsChange) {
	if res.handle == nil || res.handle.EventRecorder() == nil || !c.Claim() {
		return
	}
	res.handle.EventRecorder().Eventf(pod, nil, v1.EventTypeWarning, wellknown.EventImageBuildsChanged, "Scheduling",
		"tag %q now lists Windows builds %s (digest %s), not %s as when last read (digest %s); pods created from it before run the old image, this pod is placed by the new builds",
		ref, buildList(c.New), c.Digest, buildList(c.Old), c.OldDigest)
}

// buildList writes builds for people: "10.0.17763, 10.0.20348", or "none".
func buildList(builds []string) string {
	if len(builds) == 0 {
		return "none"
	}
	return strings.Join(builds, ", ")
}
