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

package inventory

import (
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/windows-aware/windows-aware/pkg/advice"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// Verdict is what a cluster offers a pod of one decision: the node-fit
// rule of the decision (OS, build, architecture) and the taints, judged
// once per class. The pod's own node selectors and affinity on other
// labels, its resources and its pod affinity are not looked at: the
// inventory does not keep what they read.
type Verdict struct {
	// Fit counts the nodes that run the pod.
	Fit int
	// NodePools names the Karpenter NodePools whose nodes would.
	NodePools []string
	// OSNodes counts the nodes of the pod's OS (all of them when it
	// needs none).
	OSNodes int
	// TaintedPools names the pools whose nodes would run the pod but for
	// a taint it does not tolerate; Taints are those taints,
	// key=value:effect.
	TaintedPools []string
	Taints       []string
	// WindowsBuilds are the well-formed builds of the cluster's Windows
	// nodes, oldest first: the releases an image could be retagged for.
	WindowsBuilds []string
	// Malformed are the classes whose build label is not a Windows build.
	Malformed []*Class
}

// Runs reports whether some node, or some NodePool's, runs the pod.
func (v *Verdict) Runs() bool { return v.Fit > 0 || len(v.NodePools) > 0 }

// Judge says where a pod of decision d, which has no conflict, can run.
// osToleration, set for a pod of the profile, whose scheduler grants its
// own pods the decision's implicit OS toleration, grants it here too. It
// costs one verdict per class and NodePool.
func (s *Snapshot) Judge(d *podneeds.Decision, pod *v1.Pod, osToleration bool) Verdict {
	var v Verdict
	var implicit *podneeds.OSToleration
	if osToleration {
		implicit = d.OSToleration()
	}
	logger := klog.Background()
	os := d.OS()
	for _, c := range s.Classes {
		p := &c.Platform
		if p.MalformedBuild {
			v.Malformed = append(v.Malformed, c)
		} else if p.OS == windows.OSWindows && p.Build != "" && !slices.Contains(v.WindowsBuilds, p.Build) {
			v.WindowsBuilds = append(v.WindowsBuilds, p.Build) // the classes are sorted by build
		}
		if os == "" || strings.EqualFold(p.OS, os) {
			v.OSNodes += c.Nodes
		}
		if d.Verdict(&c.host) != windows.Fits {
			continue
		}
		if t := podneeds.UntoleratedTaint(logger, c.node, p.OS, pod.Spec.Tolerations, implicit, false); t != nil {
			v.repelled(PoolName(c), t)
			continue
		}
		v.Fit += c.Nodes
	}
	for _, p := range s.NodePools {
		nodeOS, ok := p.runs(d)
		if !ok {
			continue
		}
		if t := podneeds.UntoleratedTaint(logger, p.node, nodeOS, pod.Spec.Tolerations, implicit, false); t != nil {
			v.repelled("pool "+p.Name, t)
			continue
		}
		v.NodePools = append(v.NodePools, p.Name)
	}
	return v
}

func (v *Verdict) repelled(pool string, t *v1.Taint) {
	if !slices.Contains(v.TaintedPools, pool) {
		v.TaintedPools = append(v.TaintedPools, pool)
	}
	if s := t.ToString(); !slices.Contains(v.Taints, s) {
		v.Taints = append(v.Taints, s)
	}
}

// PoolName names a class's pool, or its platform when no pool label is
// set, by advice.PoolName.
func PoolName(c *Class) string { return advice.PoolName(c.Pool, c.Platform.OS, c.Platform.Build) }

// runs reports whether the pool makes nodes that run a pod of decision d,
// and the OS of such a node: its requirements admit the pod's OS and,
// for a Windows pod whose images name builds, one of the builds that run
// it. A pool that does not pin the build (its node class's image decides
// it) is counted: the inventory cannot tell which build it makes, and a
// warning must not be wrong.
func (p *NodePool) runs(d *podneeds.Decision) (string, bool) {
	os := d.OS()
	if os == "" {
		for _, o := range []string{windows.OSLinux, windows.OSWindows} {
			if p.Admits(v1.LabelOSStable, o, true) {
				return o, true
			}
		}
		return "", false
	}
	if !p.Admits(v1.LabelOSStable, os, true) {
		return "", false
	}
	if os != windows.OSWindows || d.HostProcess() || len(p.Requirements[v1.LabelWindowsBuild]) == 0 {
		return os, true
	}
	builds, every := d.HostBuilds()
	if every {
		return os, true
	}
	for _, b := range builds {
		if p.Admits(v1.LabelWindowsBuild, b.String(), true) {
			return os, true
		}
	}
	return "", false
}
