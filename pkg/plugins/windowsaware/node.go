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
	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/pkg/windows"
)

// labelOSBeta is the OS label of nodes from before kubernetes.io/os.
const labelOSBeta = "beta.kubernetes.io/os"

// nodeOS is the OS a node's kubelet reported.
func nodeOS(node *v1.Node) string {
	if os, ok := node.Labels[v1.LabelOSStable]; ok {
		return os
	}
	return node.Labels[labelOSBeta]
}

// nodeFacts is what WindowsAware's Filter reads of a node: its OS and its
// build. It is comparable, so that nodes alike share one verdict (see
// narrow).
type nodeFacts struct {
	os    string
	build windows.Build
	state buildState
}

// factsOf reads a node's facts. It does not allocate.
func factsOf(node *v1.Node) nodeFacts {
	f := nodeFacts{os: nodeOS(node)}
	f.build, f.state = nodeBuild(node)
	return f
}

// buildState says how a node reports its Windows build.
type buildState int

const (
	buildKnown     buildState = iota
	buildMissing              // neither the label nor a Windows kernel version
	buildMalformed            // a label that is not Major.Minor.Build
)

// nodeBuild reads a node's Windows build from the
// node.kubernetes.io/windows-build label, else from the first three parts of
// status.nodeInfo.kernelVersion. It does not allocate, and parses the kernel
// version only where the label is missing: Filter calls it for every node.
func nodeBuild(node *v1.Node) (windows.Build, buildState) {
	label, hasLabel := node.Labels[LabelWindowsBuild]
	if !hasLabel {
		kernel, ok := windows.ParseKernelVersion(node.Status.NodeInfo.KernelVersion)
		if !ok {
			return windows.Build{}, buildMissing
		}
		return kernel.Build, buildKnown
	}
	b, ok := windows.ParseBuild(label)
	if !ok {
		// A label the kubelet never writes: someone set it by hand. Trust
		// neither it nor a fallback, and say so.
		return windows.Build{}, buildMalformed
	}
	return b, buildKnown
}

// nodeVersion is nodeBuild with the revision from the kernel version, when
// that is of the same build: what Score compares.
func nodeVersion(node *v1.Node) (windows.Version, buildState) {
	b, state := nodeBuild(node)
	v := windows.Version{Build: b}
	if state != buildKnown {
		return v, state
	}
	if kernel, ok := windows.ParseKernelVersion(node.Status.NodeInfo.KernelVersion); ok && kernel.Build == b {
		v.Revision, v.HasRevision = kernel.Revision, kernel.HasRevision
	}
	return v, buildKnown
}
