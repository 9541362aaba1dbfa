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

package podneeds

import (
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/windows-aware/windows-aware/pkg/windows"
)

// Image is what one image of a pod needs of a host, and where that came
// from.
type Image struct {
	// Ref is the reference as the pod names it.
	Ref string
	// Windows is set when the image is known to be a Windows image.
	Windows bool
	// Platforms are the platforms the image comes in, where known: one
	// Windows platform for a tag that names a build, every distinct entry
	// of its index for an image resolved from its registry. Nil when
	// nothing is known beyond Windows. A registry's list is shared with
	// the resolver's cache: it is read, never written.
	Platforms []windows.Platform
	// Version is the build and revision a tag names, zero otherwise.
	Version windows.Version
	Source  Source
	// summary is what the decision reads of Platforms, worked out once:
	// by the resolver when it stored them, for a registry's.
	summary windows.Summary
}

// namesBuilds reports whether some Windows platform of the image names a
// build: only such an image narrows the Windows hosts that run it.
func (in *Image) namesBuilds() bool { return in.summary.NamesBuilds() }

// ImageRefs lists the images of the pod's init containers and containers:
// every image the node must run.
func ImageRefs(pod *v1.Pod) []string {
	images := make([]string, 0, len(pod.Spec.InitContainers)+len(pod.Spec.Containers))
	ForEachImage(pod, func(ref string) bool {
		images = append(images, ref)
		return true
	})
	return images
}

// ForEachImage calls fn with each image of the pod until fn returns false.
// It allocates nothing, so that the scheduler's PreEnqueue can walk a
// pod's images.
func ForEachImage(pod *v1.Pod, fn func(ref string) bool) {
	for i := range pod.Spec.InitContainers {
		if !fn(pod.Spec.InitContainers[i].Image) {
			return
		}
	}
	for i := range pod.Spec.Containers {
		if !fn(pod.Spec.Containers[i].Image) {
			return
		}
	}
}

// IsHostProcess reports whether the pod runs on the host itself: it needs
// a Windows node but not a build match, since it uses no container image
// of the host's build.
func IsHostProcess(pod *v1.Pod) bool {
	if sc := pod.Spec.SecurityContext; sc != nil && sc.WindowsOptions != nil && ptr.Deref(sc.WindowsOptions.HostProcess, false) {
		return true
	}
	for _, containers := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range containers {
			if sc := containers[i].SecurityContext; sc != nil && sc.WindowsOptions != nil && ptr.Deref(sc.WindowsOptions.HostProcess, false) {
				return true
			}
		}
	}
	return false
}

// appendDistinctImage adds an image's platforms to images unless an equal
// list is there: the same facts (one slice of the resolver's, or one
// tagged build) are judged once. Lists of one platform, a tag's, are
// compared by value; longer ones, a registry's, by identity first, and
// by value only when their lengths match.
func appendDistinctImage(images [][]windows.Platform, platforms []windows.Platform) [][]windows.Platform {
	for _, p := range images {
		if len(p) != len(platforms) {
			continue
		}
		if len(p) > 0 && &p[0] == &platforms[0] || slices.Equal(p, platforms) {
			return images
		}
	}
	return append(images, platforms)
}
