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
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"

	"github.com/windows-aware/windows-aware/pkg/windows"
)

// NodePlatform is what WindowsAware reads of a node, as its node classes
// hold it: tools group nodes by it, since nodes alike in it get one verdict.
type NodePlatform struct {
	OS   string
	Arch string
	// Build is the node's Windows build (its label, else its kernel
	// version), "" when it reports none, or the label itself when that
	// does not parse.
	Build          string
	MalformedBuild bool
}

// PlatformOf reads a node's platform the way Filter does.
func PlatformOf(node *v1.Node) NodePlatform {
	h := hostOf(node)
	p := NodePlatform{OS: h.OS, Arch: h.Arch}
	switch h.State {
	case windows.BuildKnown:
		p.Build = h.Version.Build.String()
	case windows.BuildMalformed:
		p.Build, p.MalformedBuild = node.Labels[LabelWindowsBuild], true
	}
	return p
}

// TaintsRepel reports whether a node's NoSchedule or NoExecute taints keep
// a pod of this decision off it, as OSTaintToleration's Filter judges
// them: the pod's own tolerations, plus the OS taints of the OS the
// decision matched it to. The reason is the one that Filter gives.
func (pl *WindowsAware) TaintsRepel(d *Decision, pod *v1.Pod, node *v1.Node) (repels bool, reason string) {
	var implicit *osToleration
	if d.r != nil {
		implicit = d.r.osToleration
	}
	taints := OSTaintToleration{features: feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)}
	if taints.untolerated(klog.Background(), node, nodeOS(node), pod.Spec.Tolerations, implicit) {
		return true, ErrReasonUntoleratedTaint
	}
	return false, ""
}
