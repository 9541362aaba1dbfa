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

// nodeFacts is what WindowsAware reads of a node: its OS and its build.
type nodeFacts struct {
	os      string
	version windows.Version
	state   buildState
}

// factsOf reads a node's facts. It does not allocate.
func factsOf(node *v1.Node) nodeFacts {
	f := nodeFacts{os: nodeOS(node)}
	f.version, f.state = nodeVersion(node)
	return f
}

// buildState says how a node reports its Windows build.
type buildState int

const (
	buildKnown     buildState = iota
	buildMissing              // neither the label nor a Windows kernel version
	buildMalformed            // a label that is not Major.Minor.Build
)

// nodeVersion reads a node's Windows build from the
// node.kubernetes.io/windows-build label, else from the first three parts of
// status.nodeInfo.kernelVersion, and the revision from the kernel version
// when it is of the same build. It does not allocate: Filter and Score call
// it for every node.
func nodeVersion(node *v1.Node) (windows.Version, buildState) {
	kernel, kernelOK := windows.ParseKernelVersion(node.Status.NodeInfo.KernelVersion)
	label, hasLabel := node.Labels[LabelWindowsBuild]
	if !hasLabel {
		if !kernelOK {
			return windows.Version{}, buildMissing
		}
		return kernel, buildKnown
	}
	b, ok := windows.ParseBuild(label)
	if !ok {
		// A label the kubelet never writes: someone set it by hand. Trust
		// neither it nor a fallback, and say so.
		return windows.Version{}, buildMalformed
	}
	v := windows.Version{Build: b}
	if kernelOK && kernel.Build == b {
		v.Revision, v.HasRevision = kernel.Revision, kernel.HasRevision
	}
	return v, buildKnown
}
