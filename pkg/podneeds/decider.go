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
	"errors"
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/apis/config/validation"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// Decider decides under one profile's settings: its compatibility mode,
// its release table (with extraReleases) and its defaultOS. It is safe for
// concurrent use.
type Decider struct {
	mode    windows.Mode
	catalog *windows.Catalog
	images  *imageCache
	// defaultOS is the OS of a pod nothing else places, "" for any.
	defaultOS string
	// osTaints are the taints a pod tolerates on the nodes of its OS.
	osTaints config.OSTaints
}

// NewForProfile returns the Decider of the args of the profile named
// profile, once validation.ValidateWindowsAwareArgs, the WindowsAware
// plugin's validation of its args, finds them valid; its errors name the
// profile. The programs that decide beside the scheduler (the publish and
// warnings webhooks, explain) build their Decider with it.
func NewForProfile(profile string, args *config.WindowsAwareArgs) (*Decider, error) {
	if err := validation.ValidateWindowsAwareArgs(nil, args); err != nil {
		return nil, fmt.Errorf("profile %q: invalid WindowsAwareArgs: %w", profile, err)
	}
	decider, err := New(args)
	if err != nil {
		return nil, fmt.Errorf("profile %q: %w", profile, err)
	}
	return decider, nil
}

// New returns the Decider of a profile's args, which must have been
// validated.
func New(args *config.WindowsAwareArgs) (*Decider, error) {
	extra := make([]windows.Release, 0, len(args.ExtraReleases))
	for _, r := range args.ExtraReleases {
		b, ok := windows.ParseBuild(r.Build)
		if !ok {
			return nil, fmt.Errorf("extraReleases: token %q: build %q is not Major.Minor.Build", r.Token, r.Build)
		}
		extra = append(extra, windows.Release{Token: r.Token, Build: b})
	}
	catalog, err := windows.NewCatalog(extra)
	if err != nil {
		return nil, fmt.Errorf("extraReleases: %w", err)
	}
	mode, err := windows.ParseMode(args.CompatibilityMode)
	if err != nil {
		return nil, fmt.Errorf("compatibilityMode: %w", err)
	}
	dr := &Decider{mode: mode, catalog: catalog, images: newImageCache(catalog), osTaints: args.OSTaints}
	if args.DefaultOS != config.OSAny {
		dr.defaultOS = args.DefaultOS
	}
	return dr, nil
}

// Mode is the compatibility rule the Decider judges builds by.
func (dr *Decider) Mode() windows.Mode { return dr.mode }

// Catalog is the release table the Decider reads tags by.
func (dr *Decider) Catalog() *windows.Catalog { return dr.catalog }

// Facts tells what registries list for images, where the caller asked
// them; the Decider asks it nothing else and never waits on it.
type Facts interface {
	// Resolves reports whether images of a pod that declares os ("" when
	// it declares none; see DeclaredOS) are read from their registries.
	Resolves(declaredOS string) bool
	// PlatformsOf returns what the registry lists for ref, as the pod
	// may see it (its namespace and pull secrets). known is false when
	// nothing is known, and the image is decided by its tag; err, when
	// set, is why the pod must wait (onFailure: Reject): the decision
	// is then a conflict of kind ConflictOther with its message.
	PlatformsOf(pod *v1.Pod, ref string) (listing Listing, known bool, err error)
}

// KnownFacts is what Facts may also tell of the images of a pod they do
// not resolve (Resolves is false for it: it declares Linux, or declares no
// OS out of scope): what is already known of them, because a pod in scope
// had them resolved, without asking or waiting. The Decider reads it for
// such pods where a tag names no build. A Windows-only image known so
// makes a pod that selects Linux a conflict that names the image and its
// platforms, instead of a pod bound to a Linux node whose pull fails; it
// makes a pod that declares no OS a Windows pod, as resolution would. An
// image nothing is known of is decided by its tag, as without facts.
type KnownFacts interface {
	// KnownPlatformsOf returns what is known of ref, as the pod may see
	// it (its namespace and pull secrets); known is false when nothing
	// certain is. It never asks and never fails. It runs for the untagged
	// images of every Linux pod, so it should be a lookup that allocates
	// nothing for an image it knows nothing of.
	KnownPlatformsOf(pod *v1.Pod, ref string) (listing Listing, known bool)
}

// Listing is what a registry lists for an image.
type Listing struct {
	Platforms []windows.Platform
	// Summary is windows.Summarize(Platforms), worked out once by whoever
	// stored the listing.
	Summary windows.Summary
}

// imageOf is what a reference's tag says, remembered.
func (dr *Decider) imageOf(ref string) (windows.Image, error) { return dr.images.imageOf(ref) }

// DeclaredOS is the OS a pod declares before any registry is asked: its
// .spec.os.name, or Windows when a tag or HostProcess says so; "" when it
// declares none.
func (dr *Decider) DeclaredOS(pod *v1.Pod) string {
	if pod.Spec.OS != nil {
		return strings.ToLower(string(pod.Spec.OS.Name))
	}
	if IsHostProcess(pod) {
		return windows.OSWindows
	}
	found := false
	ForEachImage(pod, func(ref string) bool {
		if img, err := dr.imageOf(ref); err == nil && img.Windows {
			found = true
			return false
		}
		return true
	})
	if found {
		return windows.OSWindows
	}
	return ""
}

// WantsRegistry reports whether only a registry can tell what ref needs:
// its reference parses and its tag names no build.
func (dr *Decider) WantsRegistry(ref string) bool {
	img, err := dr.imageOf(ref)
	return err == nil && img.Version.IsZero()
}

// Decide works out what the pod needs of a node, from the pod, the
// profile's settings and what facts knows of its images (nil: tags alone).
// The decision names a conflict when the pod contradicts itself.
func (dr *Decider) Decide(pod *v1.Pod, facts Facts) *Decision {
	d, conflict := dr.decide(pod, facts)
	if conflict != nil {
		return &Decision{hostProcess: IsHostProcess(pod), conflict: conflict, dr: dr}
	}
	if d.need.OS != "" && dr.osTaints.Tolerate {
		d.osToleration = &OSToleration{os: d.need.OS, taints: &dr.osTaints}
	}
	return d
}

func (dr *Decider) decide(pod *v1.Pod, facts Facts) (*Decision, *Conflict) {
	d := &Decision{dr: dr, hostProcess: IsHostProcess(pod)}
	resolve := facts != nil && facts.Resolves(dr.DeclaredOS(pod))
	var known KnownFacts
	if facts != nil && !resolve {
		known, _ = facts.(KnownFacts)
	}
	for _, ref := range ImageRefs(pod) {
		in, ok, conflict := dr.imageNeedOf(pod, ref, facts, resolve, known)
		if conflict != nil {
			return nil, conflict
		}
		if ok {
			d.images = append(d.images, in)
		}
	}

	firstWindows := slices.IndexFunc(d.images, func(in Image) bool { return in.Windows })
	switch {
	case pod.Spec.OS != nil:
		d.need.OS, d.osSource = strings.ToLower(string(pod.Spec.OS.Name)), SourceSpec
	case firstWindows >= 0:
		d.need.OS, d.osSource = windows.OSWindows, d.images[firstWindows].Source
	case d.hostProcess:
		d.need.OS, d.osSource = windows.OSWindows, SourceHostProcess
	default:
		os, conflict := sharedOS(d.images)
		if conflict != nil {
			return nil, conflict
		}
		if os != "" {
			d.need.OS, d.osSource = os, SourceRegistry
		} else {
			d.need.OS, d.osSource = dr.defaultOSOf(pod)
		}
	}
	if conflict := checkImagesRunOn(d.images, d.need.OS); conflict != nil {
		return nil, conflict
	}

	// A tag that only suggests Windows (a flavour or a windows token, no
	// build) yields to a pod that says it is Linux: cross-compilers and
	// exporters carry such tags too. A build, or the registry, does not.
	certain := slices.IndexFunc(d.images, func(in Image) bool {
		return in.Windows && (in.Source == SourceRegistry || !in.Version.IsZero())
	})
	if d.need.OS == windows.OSLinux && certain >= 0 {
		in := d.images[certain]
		return nil, conflictf(ConflictOSVsImage, "pod sets .spec.os.name linux but image %q is a Windows image%s",
			in.Ref, describeBuild(in.Version))
	}
	if conflict := checkOSSelector(pod, d.need.OS, describeOSImages(d.images, d.osSource, firstWindows)); conflict != nil {
		return nil, conflict
	}
	if d.need.OS != windows.OSWindows || d.hostProcess {
		return d, nil
	}

	var pinned []Image
	for _, in := range d.images {
		if !in.namesBuilds() {
			continue
		}
		pinned = append(pinned, in)
		d.need.Images = appendDistinctImage(d.need.Images, in.Platforms)
	}
	if len(d.need.Images) == 0 {
		return d, nil
	}
	host, ok := pinned[0].summary.Newest, true
	if len(d.need.Images) > 1 {
		// One image: a host of the newest build it names runs it (what
		// SomeHostRuns finds, from the summary the resolver stored).
		// Several: weigh them.
		host, ok = dr.mode.SomeHostRuns(d.need.Images, "")
	}
	if !ok {
		return nil, conflictf(ConflictBuildsNoHost, "the pod's images need Windows builds that no single host runs (%s compatibility): %s",
			dr.mode, describeImages(pinned))
	}
	d.target = windows.Version{Build: host}
	for _, in := range pinned {
		if in.Version.Build == host && in.Version.HasRevision {
			d.target = in.Version
			break
		}
	}
	if conflict := dr.checkBuildSelector(pod, &d.need, pinned); conflict != nil {
		return nil, conflict
	}
	return d, nil
}

// imageNeedOf reads what one image reference needs: from its tag, or,
// where the tag names no build, from the platforms its registry lists: as
// facts tell them when resolve is set, else as known tells them, when it
// knows them (nil: nothing is known). ok is false for an image that says
// nothing of the host it needs, and for a reference that does not parse,
// which is the kubelet's to report (InvalidImageName).
func (dr *Decider) imageNeedOf(pod *v1.Pod, ref string, facts Facts, resolve bool, known KnownFacts) (Image, bool, *Conflict) {
	img, err := dr.imageOf(ref)
	if err != nil {
		var conflicting *windows.ConflictingTagError
		if errors.As(err, &conflicting) {
			return Image{}, false, conflictf(ConflictTagTwoBuilds, "%v", err)
		}
		return Image{}, false, nil
	}
	if img.Version.IsZero() && (resolve || known != nil) {
		var (
			listing Listing
			found   bool
		)
		if resolve {
			if listing, found, err = facts.PlatformsOf(pod, ref); err != nil {
				return Image{}, false, conflictf(ConflictOther, "%v", err)
			}
		} else {
			listing, found = known.KnownPlatformsOf(pod, ref)
		}
		if found {
			s := listing.Summary
			return Image{Ref: ref, Windows: s.Windows && !s.Linux, Platforms: listing.Platforms, summary: s, Source: SourceRegistry}, true, nil
		}
	}
	if !img.Windows {
		return Image{}, false, nil
	}
	in := Image{Ref: ref, Windows: true, Version: img.Version, Source: SourceTag}
	if !img.Version.IsZero() {
		in.Platforms = []windows.Platform{{OS: windows.OSWindows, Version: windows.Version{Build: img.Version.Build}}}
		in.summary = windows.Summarize(in.Platforms)
	}
	return in, true, nil
}

// sharedOS is the one OS that every image whose platforms its registry
// listed comes in, or "" when they share several or none was resolved. It
// is a conflict for them to share none.
func sharedOS(images []Image) (string, *Conflict) {
	bothLinux, bothWindows, resolved := true, true, false
	for i := range images {
		if images[i].Source != SourceRegistry {
			continue
		}
		s := &images[i].summary
		bothLinux, bothWindows, resolved = bothLinux && s.Linux, bothWindows && s.Windows, true
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
func checkImagesRunOn(images []Image, os string) *Conflict {
	if os == "" {
		return nil
	}
	for i := range images {
		in := &images[i]
		if in.Source != SourceRegistry {
			continue
		}
		if (os == windows.OSLinux && !in.summary.Linux) || (os == windows.OSWindows && !in.summary.Windows) {
			return conflictf(ConflictOSVsImage, "the pod needs a %s node but image %q has no %s platform (its registry lists %s)",
				os, in.Ref, os, platformList(in.Platforms))
		}
	}
	return nil
}

// defaultOSOf is the OS of a pod with no OS of its own: the one its node
// selector or affinity pins, so that a pod the user already placed by hand
// keeps its placement; any OS for a DaemonSet's pod, whose controller has
// already chosen its node (a multi-OS agent that tolerates every taint runs
// on the nodes of both OSes, as it would under the stock scheduler); else
// the configured default.
func (dr *Decider) defaultOSOf(pod *v1.Pod) (string, Source) {
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
	if DaemonSetPod(pod) {
		return "", SourceDaemonSet
	}
	return dr.defaultOS, SourceDefault
}
