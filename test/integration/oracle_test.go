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

package integration

import (
	"fmt"
	"regexp"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/internal/oracle"
)

// need is what a test pod needs of a node, as the test wrote the pod: an
// OS and, for a Windows pod whose images name a release, the build those
// images need. An empty build on Windows is a HostProcess pod, which runs
// on any Windows build.
type need struct {
	os, build string
}

func (n need) String() string {
	if n.build == "" {
		return n.os
	}
	return n.os + " " + n.build
}

// osTaintKeys are the OS taint keys the shipped configuration tolerates
// for a pod matched to the node's OS.
var osTaintKeys = map[string]bool{"os": true, "node.kubernetes.io/os": true}

var buildPattern = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`)

// nodeBuild is the build a node reports, as docs/how-it-decides.md states
// the rule, written out independently of package windows: the
// windows-build label when set (none when malformed), else the first three
// parts of the kernel version.
func nodeBuild(n *v1.Node) string {
	if label, ok := n.Labels[v1.LabelWindowsBuild]; ok {
		if buildPattern.MatchString(label) {
			return label
		}
		return ""
	}
	parts := strings.Split(n.Status.NodeInfo.KernelVersion, ".")
	if len(parts) < 3 {
		return ""
	}
	if b := strings.Join(parts[:3], "."); buildPattern.MatchString(b) {
		return b
	}
	return ""
}

func nodeOS(n *v1.Node) string {
	if os := n.Labels[v1.LabelOSStable]; os != "" {
		return os
	}
	return n.Labels["beta.kubernetes.io/os"]
}

// nodeRuns reports whether node n, as it stood, can take a test pod that
// needs nd (the test pods have no tolerations and no resource requests),
// and if not, why: the OS, the build (containerd rule, function runs),
// cordoning, and every NoSchedule or NoExecute taint but an OS taint with
// the node's OS as its value, in any case, with effect NoSchedule.
func nodeRuns(n *v1.Node, nd need) (bool, string) {
	switch {
	case n == nil:
		return false, "node absent"
	case nodeOS(n) != nd.os:
		return false, fmt.Sprintf("OS %q", nodeOS(n))
	case n.Spec.Unschedulable:
		return false, "cordoned"
	}
	if nd.os == "windows" && nd.build != "" {
		b := nodeBuild(n)
		if b == "" {
			return false, fmt.Sprintf("no valid build (label %q, kernel %q)", n.Labels[v1.LabelWindowsBuild], n.Status.NodeInfo.KernelVersion)
		}
		if !oracle.Runs(b, nd.build) {
			return false, "build " + b
		}
	}
	for _, taint := range n.Spec.Taints {
		if taint.Effect == v1.TaintEffectPreferNoSchedule {
			continue
		}
		if osTaintKeys[taint.Key] && taint.Effect == v1.TaintEffectNoSchedule && strings.EqualFold(taint.Value, nodeOS(n)) {
			continue
		}
		return false, "taint " + taint.ToString()
	}
	return true, ""
}
