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

	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/pkg/windows"
)

// Decision is what WindowsAware decides about a pod before it looks at any
// node, with where each part came from: what tools that explain or publish
// the plugin's decisions read. It is worked out by the same code as
// PreFilter's, never a copy of it.
type Decision struct {
	// OS is the OS the pod must run on, "" when any will do.
	OS       string
	OSSource Source
	// HostProcess pods need a Windows host of any build.
	HostProcess bool
	// Images are the pod's images that say something of the host.
	Images []ImageDecision
	// Target is the build a node must have for Score to rank it first,
	// zero when the pod needs no particular build.
	Target windows.Version
	// Conflict, when set, is the message the scheduler rejects the pod
	// with: no node can run it, whatever the cluster holds.
	Conflict     string
	conflictKind ConflictKind

	r *requirements
}

// ImageDecision is what one image needs.
type ImageDecision struct {
	Image string
	// Windows is set for a Windows image.
	Windows bool
	// Platforms are the platforms the image is known to come in; empty
	// when nothing is known beyond Windows.
	Platforms []windows.Platform
	Source    Source
}

// Decide works out what the pod needs of a node, as PreFilter does.
func (pl *WindowsAware) Decide(pod *v1.Pod) Decision {
	r, err := pl.requirementsQuiet(pod)
	if err != nil {
		var conflict *conflictError
		if errors.As(err, &conflict) {
			return Decision{Conflict: conflict.msg, conflictKind: conflict.kind, HostProcess: isHostProcess(pod)}
		}
		return Decision{Conflict: err.Error(), conflictKind: ConflictOther}
	}
	d := Decision{OS: r.need.OS, OSSource: r.osSource, HostProcess: isHostProcess(pod), Target: r.target, r: r}
	for _, in := range r.images {
		d.Images = append(d.Images, ImageDecision{Image: in.image, Windows: in.windows, Platforms: in.platforms, Source: in.source})
	}
	return d
}

// FitNode reports whether a node can run a pod of this decision, and the
// reason Filter gives when it cannot. A decision with a conflict fits no
// node, and its reason is the conflict.
func (pl *WindowsAware) FitNode(d *Decision, node *v1.Node) (fits bool, reason string) {
	if d.r == nil {
		return false, d.Conflict
	}
	if f := pl.fitsHost(d.r, node); f != windows.Fits {
		return false, reasonsOf[f][0]
	}
	return true, ""
}

// HostBuilds lists, oldest first, the Windows host builds that run a pod
// of this decision under the configured compatibility rule: the builds of
// the release table (with extraReleases) and those the pod's images name.
// every is set when every one of them does, as for a pod that needs no
// particular build. It is the one answer to "which builds may this pod
// land on", for explain and for what publish mode writes into pods. A
// decision with a conflict runs on none.
func (pl *WindowsAware) HostBuilds(d *Decision) (builds []windows.Build, every bool) {
	if d.r == nil {
		return nil, false
	}
	return pl.mode.HostBuilds(&d.r.need, pl.images.catalog)
}
