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
	"cmp"

	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/pkg/windows"
)

// LabelWindowsBuild is the node label the kubelet sets to a Windows node's
// Major.Minor.Build.
const LabelWindowsBuild = v1.LabelWindowsBuild

// labelOSBeta is the OS label of nodes from before kubernetes.io/os.
const labelOSBeta = "beta.kubernetes.io/os"

// NodeOS is the OS a node's kubelet reported.
func NodeOS(node *v1.Node) string {
	if os, ok := node.Labels[v1.LabelOSStable]; ok {
		return os
	}
	return node.Labels[labelOSBeta]
}

// HostOf reads what a node offers a pod from its labels and kernel version.
// It is the one place that reads a node for the decision. It does not
// allocate.
func HostOf(node *v1.Node) windows.Host {
	h := windows.Host{OS: NodeOS(node), Arch: node.Labels[v1.LabelArchStable]}
	h.Version, h.State = nodeVersion(node)
	return h
}

// nodeVersion reads a node's Windows build from the
// node.kubernetes.io/windows-build label, else from the first three parts of
// status.nodeInfo.kernelVersion, with the revision the kernel version shows
// when it is of the same build.
func nodeVersion(node *v1.Node) (windows.Version, windows.BuildState) {
	kernel, kernelOK := windows.ParseKernelVersion(node.Status.NodeInfo.KernelVersion)
	label, hasLabel := node.Labels[LabelWindowsBuild]
	if !hasLabel {
		if !kernelOK {
			return windows.Version{}, windows.BuildMissing
		}
		return kernel, windows.BuildKnown
	}
	b, ok := windows.ParseBuild(label)
	if !ok {
		// A label the kubelet never writes: someone set it by hand. Trust
		// neither it nor a fallback, and say so.
		return windows.Version{}, windows.BuildMalformed
	}
	v := windows.Version{Build: b}
	if kernelOK && kernel.Build == b {
		v.Revision, v.HasRevision = kernel.Revision, kernel.HasRevision
	}
	return v, windows.BuildKnown
}

// NodePlatform is what the decision reads of a node: tools group nodes by
// it, since nodes alike in it get one verdict.
type NodePlatform struct {
	OS   string
	Arch string
	// Build is the node's Windows build (its label, else its kernel
	// version), "" when it reports none, or the label itself when that
	// does not parse.
	Build          string
	MalformedBuild bool
}

// Compare orders platforms as the reports list them: by OS (linux before
// windows), a malformed build label after the builds of its OS, builds
// oldest first (CompareBuilds), then by architecture.
func (p NodePlatform) Compare(o NodePlatform) int {
	return cmp.Or(
		cmp.Compare(p.OS, o.OS),
		compareBool(p.MalformedBuild, o.MalformedBuild),
		CompareBuilds(p.Build, o.Build),
		cmp.Compare(p.Arch, o.Arch),
	)
}

// CompareBuilds orders builds as the node label spells them by number,
// where they are numbers: 10.0.17763 before 10.0.20348.
func CompareBuilds(a, b string) int {
	return cmp.Or(cmp.Compare(len(a), len(b)), cmp.Compare(a, b))
}

// compareBool orders false before true.
func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// PlatformOf is a node's platform, from its HostOf.
func PlatformOf(node *v1.Node) NodePlatform {
	h := HostOf(node)
	p := NodePlatform{OS: h.OS, Arch: h.Arch}
	switch h.State {
	case windows.BuildKnown:
		p.Build = h.Version.Build.String()
	case windows.BuildMalformed:
		p.Build, p.MalformedBuild = node.Labels[LabelWindowsBuild], true
	}
	return p
}
