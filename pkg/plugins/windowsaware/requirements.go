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
	// osSource says where need.OS came from; images says, for every image
	// of the pod, what it needs and where that came from. Both are for
	// the people reading a decision (explain, events), not for Filter.
	osSource Source
	images   []imageNeed
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

// Source says where a decision came from.
type Source string

const (
	// SourceSpec: the pod's .spec.os.name.
	SourceSpec Source = "spec"
	// SourceTag: an image reference's tag (or a mcr.microsoft.com/windows
	// repository).
	SourceTag Source = "tag"
	// SourceRegistry: the platforms the image's registry lists.
	SourceRegistry Source = "registry"
	// SourceHostProcess: a HostProcess pod runs on a Windows host.
	SourceHostProcess Source = "hostProcess"
	// SourceSelector: a required node selector or affinity of the pod
	// (with its RuntimeClass's merged in) pins kubernetes.io/os.
	SourceSelector Source = "selector"
	// SourceDefault: the defaultOS of the plugin's args.
	SourceDefault Source = "default"
)

// imageNeed is what one image of the pod needs of a host.
type imageNeed struct {
	image string
	// windows is set when the image is known to be a Windows image.
	windows bool
	// platforms are the platforms the image comes in, where known: one
	// Windows platform for a tag that names a build, every distinct entry
	// of its index for an image resolved from its registry. Nil when
	// nothing is known beyond windows.
	platforms []windows.Platform
	// version is the build and revision a tag names, zero otherwise.
	version windows.Version
	source  Source
	// summary is what the decisions read of platforms, worked out once:
	// by the resolver when it stored them, for a registry's.
	summary windows.Summary
}

// oses returns the OSes the image's platforms cover, when they are known.
func (in *imageNeed) oses() (linux, win bool) { return in.summary.Linux, in.summary.Windows }

// namesBuilds reports whether some Windows platform of the image names a
// build: only such an image narrows the Windows hosts that run it.
func (in *imageNeed) namesBuilds() bool { return in.summary.NamesBuilds() }

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

// podImages lists the images of the pod's containers and init containers:
// every image the node must run.
func podImages(pod *v1.Pod) []string {
	images := make([]string, 0, len(pod.Spec.InitContainers)+len(pod.Spec.Containers))
	forEachImage(pod, func(ref string) bool {
		images = append(images, ref)
		return true
	})
	return images
}

// forEachImage calls fn with each image of the pod until fn returns false.
// It allocates nothing, so that PreEnqueue can walk a pod's images.
func forEachImage(pod *v1.Pod, fn func(ref string) bool) {
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
// PreFilter reports it as UnschedulableAndUnresolvable with its message,
// and counts it by kind.
type conflictError struct {
	kind ConflictKind
	msg  string
}

func (e *conflictError) Error() string { return e.msg }

func conflictf(kind ConflictKind, format string, args ...any) error {
	return &conflictError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// requirementsOf works out what pod needs of a node. The error, always a
// *conflictError, names the images and builds that contradict each other.
// It may ask the resolver for images it does not know yet and record an
// Event for one its registry could not tell; requirementsQuiet does
// neither, for queueing hints (which run under the queue's lock) and tools.
func (pl *WindowsAware) requirementsOf(pod *v1.Pod) (*requirements, error) {
	return pl.requirementsFor(pod, false)
}

// requirementsQuiet is requirementsOf without side effects.
func (pl *WindowsAware) requirementsQuiet(pod *v1.Pod) (*requirements, error) {
	return pl.requirementsFor(pod, true)
}

func (pl *WindowsAware) requirementsFor(pod *v1.Pod, quiet bool) (*requirements, error) {
	r := &requirements{}
	resolve := pl.resolution != nil && pl.resolution.inScope(pl.declaredOS(pod))
	for _, ref := range podImages(pod) {
		in, ok, err := pl.imageNeedOf(pod, ref, resolve, quiet)
		if err != nil {
			return nil, err
		}
		if ok {
			r.images = append(r.images, in)
		}
	}

	hostProcess := isHostProcess(pod)
	firstWindows := slices.IndexFunc(r.images, func(in imageNeed) bool { return in.windows })
	switch {
	case pod.Spec.OS != nil:
		r.need.OS, r.osSource = strings.ToLower(string(pod.Spec.OS.Name)), SourceSpec
	case firstWindows >= 0:
		r.need.OS, r.osSource = windows.OSWindows, r.images[firstWindows].source
	case hostProcess:
		r.need.OS, r.osSource = windows.OSWindows, SourceHostProcess
	default:
		os, err := sharedOS(r.images)
		if err != nil {
			return nil, err
		}
		if os != "" {
			r.need.OS, r.osSource = os, SourceRegistry
		} else {
			r.need.OS, r.osSource = pl.defaultOSOf(pod)
		}
	}
	if err := checkImagesRunOn(r.images, r.need.OS); err != nil {
		return nil, err
	}

	if r.need.OS != "" && pl.args.OSTaints.Tolerate {
		r.osToleration = &osToleration{os: r.need.OS, taints: &pl.args.OSTaints}
	}

	// A tag that only suggests Windows (a flavour or a windows token, no
	// build) yields to a pod that says it is Linux: cross-compilers and
	// exporters carry such tags too. A build, or the registry, does not.
	certain := slices.IndexFunc(r.images, func(in imageNeed) bool {
		return in.windows && (in.source == SourceRegistry || !in.version.IsZero())
	})
	if r.need.OS == windows.OSLinux && certain >= 0 {
		in := r.images[certain]
		return nil, conflictf(ConflictOSVsImage, "pod sets .spec.os.name linux but image %q is a Windows image%s",
			in.image, describeBuild(in.version))
	}
	if err := pl.checkOSSelector(pod, r.need.OS); err != nil {
		return nil, err
	}
	if r.need.OS != windows.OSWindows || hostProcess {
		return r, nil
	}

	var pinned []imageNeed
	for _, in := range r.images {
		if !in.namesBuilds() {
			continue
		}
		pinned = append(pinned, in)
		r.need.Images = appendDistinctImage(r.need.Images, in.platforms)
	}
	if len(r.need.Images) == 0 {
		return r, nil
	}
	host, ok := pinned[0].summary.Newest, true
	if len(r.need.Images) > 1 {
		// One image: a host of the newest build it names runs it (what
		// SomeHostRuns finds, from the summary the resolver stored).
		// Several: weigh them.
		host, ok = pl.mode.SomeHostRuns(r.need.Images, "")
	}
	if !ok {
		return nil, conflictf(ConflictBuildsNoHost, "the pod's images need Windows builds that no single host runs (%s compatibility): %s",
			pl.mode, describeImages(pinned))
	}
	r.target = windows.Version{Build: host}
	for _, in := range pinned {
		if in.version.Build == host && in.version.HasRevision {
			r.target = in.version
			break
		}
	}
	if err := pl.checkBuildSelector(pod, &r.need, pinned); err != nil {
		return nil, err
	}
	return r, nil
}

// imageNeedOf reads what one image reference needs: from its tag, or,
// where the tag names no build and resolve is set, from the platforms its
// registry lists. ok is false for an image that says nothing of the host it
// needs, and for a reference that does not parse, which is the kubelet's to
// report (InvalidImageName).
func (pl *WindowsAware) imageNeedOf(pod *v1.Pod, ref string, resolve, quiet bool) (imageNeed, bool, error) {
	img, err := pl.images.imageOf(ref)
	if err != nil {
		var conflicting *windows.ConflictingTagError
		if errors.As(err, &conflicting) {
			return imageNeed{}, false, conflictf(ConflictTagTwoBuilds, "%v", err)
		}
		return imageNeed{}, false, nil
	}
	if resolve && img.Version.IsZero() {
		facts, known, err := pl.resolution.platformsOf(pod, ref, quiet)
		if err != nil {
			return imageNeed{}, false, err
		}
		if known {
			s := facts.Summary
			return imageNeed{image: ref, windows: s.Windows && !s.Linux, platforms: facts.Platforms, summary: s, source: SourceRegistry}, true, nil
		}
	}
	if !img.Windows {
		return imageNeed{}, false, nil
	}
	in := imageNeed{image: ref, windows: true, version: img.Version, source: SourceTag}
	if !img.Version.IsZero() {
		in.platforms = []windows.Platform{{OS: windows.OSWindows, Version: windows.Version{Build: img.Version.Build}}}
		in.summary = windows.Summarize(in.platforms)
	}
	return in, true, nil
}

// sharedOS is the one OS that every image whose platforms its registry
// listed comes in, or "" when they share several or none was resolved. It
// is an error for them to share none.
func sharedOS(images []imageNeed) (string, error) {
	bothLinux, bothWindows, resolved := true, true, false
	for i := range images {
		if images[i].source != SourceRegistry {
			continue
		}
		linux, win := images[i].oses()
		bothLinux, bothWindows, resolved = bothLinux && linux, bothWindows && win, true
	}
	switch {
	case !resolved || (bothLinux && bothWindows):
		return "", nil
	case bothLinux:
		return windows.OSLinux, nil
	case bothWindows:
		return windows.OSWindows, nil
	}
	return "", conflictf(ConflictOther, "the pod's images share no OS: %s", describePlatforms(images))
}

// checkImagesRunOn rejects a pod one of whose images, as its registry
// lists it, has no platform of the pod's OS.
func checkImagesRunOn(images []imageNeed, os string) error {
	if os == "" {
		return nil
	}
	for i := range images {
		in := &images[i]
		if in.source != SourceRegistry {
			continue
		}
		linux, win := in.oses()
		if (os == windows.OSLinux && !linux) || (os == windows.OSWindows && !win) {
			return conflictf(ConflictOSVsImage, "the pod needs a %s node but image %q has no %s platform (its registry lists %s)",
				os, in.image, os, platformList(in.platforms))
		}
	}
	return nil
}

func describePlatforms(images []imageNeed) string {
	var parts []string
	for i := range images {
		if images[i].source == SourceRegistry {
			parts = append(parts, fmt.Sprintf("image %q comes in %s", images[i].image, platformList(images[i].platforms)))
		}
	}
	return strings.Join(parts, ", ")
}

// platformList spells platforms as os/arch[:os.version].
func platformList(platforms []windows.Platform) string {
	parts := make([]string, 0, len(platforms))
	for _, p := range platforms {
		s := p.OS
		if p.Arch != "" {
			s += "/" + p.Arch
		}
		if !p.Version.IsZero() {
			s += " " + p.Version.Build.String()
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// defaultOSOf is the OS of a pod with no OS of its own: the one its node
// selector or affinity pins, so that a pod the user already placed by hand
// keeps its placement, else the configured default.
func (pl *WindowsAware) defaultOSOf(pod *v1.Pod) (string, Source) {
	if values, pinned := pinnedValues(pod, v1.LabelOSStable); pinned {
		os := ""
		for _, v := range values {
			v = strings.ToLower(v)
			if os != "" && v != os {
				return "", SourceSelector // several OSes allowed: leave it to NodeAffinity
			}
			os = v
		}
		return os, SourceSelector
	}
	if pl.args.DefaultOS == config.OSAny {
		return "", SourceDefault
	}
	return pl.args.DefaultOS, SourceDefault
}

func describeBuild(v windows.Version) string {
	if v.IsZero() {
		return ""
	}
	return fmt.Sprintf(" (build %s)", v.Build)
}

func describeImages(images []imageNeed) string {
	parts := make([]string, len(images))
	for i, in := range images {
		parts[i] = fmt.Sprintf("image %q needs %s", in.image, describeBuilds(in.platforms))
	}
	return strings.Join(parts, ", ")
}

// describeBuilds names the Windows builds of platforms: "10.0.17763", or
// "one of 10.0.17763, 10.0.20348" for a list, in the list's order.
func describeBuilds(platforms []windows.Platform) string {
	var builds []string
	seen := map[windows.Build]bool{}
	for _, p := range platforms {
		if strings.EqualFold(p.OS, windows.OSWindows) && !p.Version.IsZero() && !seen[p.Version.Build] {
			seen[p.Version.Build] = true
			builds = append(builds, p.Version.Build.String())
		}
	}
	if len(builds) == 1 {
		return builds[0]
	}
	return "one of " + strings.Join(builds, ", ")
}
