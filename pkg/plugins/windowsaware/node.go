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

// hostOf reads what a node offers a pod from its labels and kernel version.
// It is the one place that reads a node: the node class table calls it once
// per node object, and Filter and Score only for a node the table does not
// hold yet. It does not allocate.
func hostOf(node *v1.Node) windows.Host {
	h := windows.Host{OS: nodeOS(node), Arch: node.Labels[v1.LabelArchStable]}
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
