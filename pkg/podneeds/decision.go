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
	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/pkg/windows"
)

// Decision is what a pod needs of a node, decided once before any node is
// looked at, with where each part came from. Nothing in it changes once
// Decide has returned it, so it may be shared: the scheduler keeps it in
// its cycle state, tools print it.
type Decision struct {
	dr *Decider
	// need is the OS and the platforms of the images that constrain the
	// node's build: what the node-fit rule judges a node by.
	need        windows.Need
	osSource    Source
	hostProcess bool
	images      []Image
	target      windows.Version
	conflict    *Conflict
	// osToleration is the pod's implicit OS toleration, or nil.
	osToleration *OSToleration
}

// OS is the OS the pod must run on, "" when any will do.
func (d *Decision) OS() string { return d.need.OS }

// OSSource says where OS came from.
func (d *Decision) OSSource() Source { return d.osSource }

// HostProcess is set for a pod that runs on the host itself: it needs a
// Windows host of any build.
func (d *Decision) HostProcess() bool { return d.hostProcess }

// Images lists the pod's images that say something of the host: what each
// needs and where that came from. The slice is the caller's; the
// platforms in it are shared, to be read only.
func (d *Decision) Images() []Image { return append([]Image(nil), d.images...) }

// Target is the build a node must have to rank first among those that fit
// (the newest build the images need, with the revision a
// 10.0.<build>.<revision> tag names); zero when the pod needs no
// particular build.
func (d *Decision) Target() windows.Version { return d.target }

// Conflict is the message the scheduler rejects the pod with when it
// contradicts itself (no node can run it, whatever the cluster holds), ""
// when it does not. It names the images and builds.
func (d *Decision) Conflict() string {
	if d.conflict == nil {
		return ""
	}
	return d.conflict.Message
}

// ConflictKind classifies Conflict; "" when there is none.
func (d *Decision) ConflictKind() ConflictKind {
	if d.conflict == nil {
		return ""
	}
	return d.conflict.Kind
}

// Err is the conflict as an error: nil, or a *Conflict.
func (d *Decision) Err() error {
	if d.conflict == nil {
		return nil
	}
	return d.conflict
}

// NeedsNothing reports whether the decision constrains no node: no OS and
// no build, and no conflict.
func (d *Decision) NeedsNothing() bool {
	return d.conflict == nil && d.need.OS == "" && len(d.need.Images) == 0
}

// NamesBuilds reports whether the pod's images narrow the Windows builds
// that run it, so that nodes that fit may rank apart.
func (d *Decision) NamesBuilds() bool { return len(d.need.Images) > 0 }

// Verdict is the pod's verdict on a host: the one node-fit rule of the
// project, which the scheduler's Filter, its queueing hints, publish mode
// and explain all apply. A decision with a conflict fits no host (WrongOS).
// It does not allocate.
func (d *Decision) Verdict(host *windows.Host) windows.Fit {
	if d.conflict != nil {
		return windows.WrongOS
	}
	return d.dr.mode.Verdict(&d.need, host)
}

// VerdictOnNode is Verdict on what a node's labels and kernel version say.
func (d *Decision) VerdictOnNode(node *v1.Node) windows.Fit {
	host := HostOf(node)
	return d.Verdict(&host)
}

// RunsOn reports whether the node can run the pod, and if not, why: the
// verdict's unschedulable reason, or the conflict, which no node fits. It
// is Verdict for callers that want a yes or no with words, not the verdict.
func (d *Decision) RunsOn(node *v1.Node) (ok bool, reason string) {
	if d.conflict != nil {
		return false, d.conflict.Message
	}
	if f := d.VerdictOnNode(node); f != windows.Fits {
		return false, Reason(f)
	}
	return true, ""
}

// Exact reports whether the host's build is the very build some image of
// the pod was built for: among the hosts that fit, those run an image its
// publisher built for them, rather than one they merely run.
func (d *Decision) Exact(host *windows.Host) bool { return d.need.Exact(host) }

// HostBuilds lists, oldest first, the Windows host builds that run the pod
// under the profile's compatibility rule: the builds of the release table
// (with extraReleases) and those the pod's images name. every is set when
// every one of them does, as for a pod that needs no particular build. It
// is the one answer to "which builds may this pod land on", for explain
// and for what publish mode writes into pods. A decision with a conflict
// runs on none.
func (d *Decision) HostBuilds() (builds []windows.Build, every bool) {
	if d.conflict != nil {
		return nil, false
	}
	return d.dr.mode.HostBuilds(&d.need, d.dr.catalog)
}
