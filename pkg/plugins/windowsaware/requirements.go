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
	"errors"
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// requirements is what a pod needs of a node, worked out once per
// scheduling cycle in PreFilter so that Filter and Score only look up.
// Nothing in it changes once PreFilter has written it.
type requirements struct {
	// need is the OS and the platforms of the images that constrain the
	// node's build: what windows.Mode.Fit judges a node by.
	need windows.Need
	// target is the build an exact match equals (the newest build the
	// images need), with the revision a 10.0.<build>.<revision> tag named.
	target windows.Version
	// osToleration is the OS taint toleration the pod gets on nodes of its
	// OS, or nil.
	osToleration *osToleration
	// uniformScore is set when every node that fits has the target build
	// and no revision is asked for: Score would rank them all alike.
	uniformScore bool
	// classes are the node classes known when PreFilter ran, and fits and
	// scores the pod's verdict and raw score for each: Filter and Score
	// find a node's class and index these. Nil when PreFilter did not run.
	classes *classTable
	fits    []windows.Fit
	scores  []int64
}

// needsNothing reports whether WindowsAware has nothing to check for the pod.
func (r *requirements) needsNothing() bool { return r.need.OS == "" && len(r.need.Images) == 0 }

// imageBuild is one image of the pod that names a Windows build.
type imageBuild struct {
	image   string
	version windows.Version
}

// podImages lists the images of the pod's containers and init containers:
// every image the node must run.
func podImages(pod *v1.Pod) []string {
	images := make([]string, 0, len(pod.Spec.InitContainers)+len(pod.Spec.Containers))
	for i := range pod.Spec.InitContainers {
		images = append(images, pod.Spec.InitContainers[i].Image)
	}
	for i := range pod.Spec.Containers {
		images = append(images, pod.Spec.Containers[i].Image)
	}
	return images
}

// isHostProcess reports whether the pod runs on the host itself: it needs a
// Windows node but not a build match, since it uses no container image of
// the host's build.
func isHostProcess(pod *v1.Pod) bool {
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

// conflictError is a pod that no node can run, whatever the cluster holds:
// PreFilter reports it as UnschedulableAndUnresolvable with its message.
type conflictError struct{ msg string }

func (e *conflictError) Error() string { return e.msg }

func conflictf(format string, args ...any) error {
	return &conflictError{msg: fmt.Sprintf(format, args...)}
}

// requirementsOf works out what pod needs of a node. The error, always a
// *conflictError, names the images and builds that contradict each other.
func (pl *WindowsAware) requirementsOf(pod *v1.Pod) (*requirements, error) {
	var windowsImages []imageBuild // images whose reference shows Windows
	for _, ref := range podImages(pod) {
		img, err := pl.images.imageOf(ref)
		if err != nil {
			var conflicting *windows.ConflictingTagError
			if errors.As(err, &conflicting) {
				return nil, conflictf("%v", err)
			}
			// A reference that does not parse is the kubelet's to report
			// (InvalidImageName); it says nothing about the node.
			continue
		}
		if img.Windows {
			windowsImages = append(windowsImages, imageBuild{image: ref, version: img.Version})
		}
	}

	hostProcess := isHostProcess(pod)
	r := &requirements{}
	switch {
	case pod.Spec.OS != nil:
		r.need.OS = strings.ToLower(string(pod.Spec.OS.Name))
	case len(windowsImages) > 0 || hostProcess:
		r.need.OS = windows.OSWindows
	default:
		r.need.OS = pl.defaultOSOf(pod)
	}

	if r.need.OS != "" && pl.args.OSTaints.Tolerate {
		r.osToleration = &osToleration{os: r.need.OS, taints: &pl.args.OSTaints}
	}

	if r.need.OS == windows.OSLinux && len(windowsImages) > 0 {
		return nil, conflictf("pod sets .spec.os.name linux but image %q is a Windows image%s",
			windowsImages[0].image, describeBuild(windowsImages[0].version))
	}
	if err := pl.checkOSSelector(pod, r.need.OS); err != nil {
		return nil, err
	}
	if r.need.OS != windows.OSWindows || hostProcess {
		return r, nil
	}

	var pinned []imageBuild
	var builds []windows.Build
	for _, ib := range windowsImages {
		if ib.version.IsZero() {
			continue
		}
		pinned = append(pinned, ib)
		if slices.Contains(builds, ib.version.Build) {
			continue
		}
		builds = append(builds, ib.version.Build)
		r.need.Images = append(r.need.Images, []windows.Platform{{OS: windows.OSWindows, Version: windows.Version{Build: ib.version.Build}}})
	}
	if len(r.need.Images) == 0 {
		return r, nil
	}
	host, ok := pl.mode.SomeHostRuns(r.need.Images, "")
	if !ok {
		return nil, conflictf("the pod's images need Windows builds that no single host runs (%s compatibility): %s",
			pl.mode, describeImages(pinned))
	}
	r.target = windows.Version{Build: host}
	for _, ib := range pinned {
		if ib.version.Build == host && ib.version.HasRevision {
			r.target = ib.version
			break
		}
	}
	if err := pl.checkBuildSelector(pod, &r.need, pinned); err != nil {
		return nil, err
	}
	return r, nil
}

// defaultOSOf is the OS of a pod with no OS of its own: the one its node
// selector or affinity pins, so that a pod the user already placed by hand
// keeps its placement, else the configured default.
func (pl *WindowsAware) defaultOSOf(pod *v1.Pod) string {
	if values, pinned := pinnedValues(pod, v1.LabelOSStable); pinned {
		os := ""
		for _, v := range values {
			v = strings.ToLower(v)
			if os != "" && v != os {
				return "" // several OSes allowed: leave it to NodeAffinity
			}
			os = v
		}
		return os
	}
	if pl.args.DefaultOS == config.OSAny {
		return ""
	}
	return pl.args.DefaultOS
}

func describeBuild(v windows.Version) string {
	if v.IsZero() {
		return ""
	}
	return fmt.Sprintf(" (build %s)", v.Build)
}

func describeImages(images []imageBuild) string {
	parts := make([]string, len(images))
	for i, ib := range images {
		parts[i] = fmt.Sprintf("image %q needs %s", ib.image, ib.version.Build)
	}
	return strings.Join(parts, ", ")
}
