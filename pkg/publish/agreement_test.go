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

package publish

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// The agreement of publish mode, stricter than the invariant: for nodes as
// kubelets register them, the nodes a published pod's own constraints
// admit (its required node affinity by upstream's nodeaffinity, its
// tolerations against the taints by the stock helper) are exactly the
// nodes the Filter admits (WindowsAware and OSTaintToleration), over every
// build a node may carry: the release table's, host-only builds such as
// 23H2's 25398 (which runs ltsc2022 images, though no tag names it) and an
// Insider build. One difference is by design: a node with no OS label, which
// only simulated clusters have, is Linux to the Filter and fits no
// published kubernetes.io/os: linux.

// agreementNodes are Windows nodes of every host build, bare and with the
// documented OS taint; Linux nodes, bare and tainted os=linux; and nodes
// with no OS label, bare, reporting a Windows kernel, or carrying a taint
// with an empty value.
func agreementNodes() []*v1.Node {
	builds := windows.DefaultCatalog().Hosts()
	builds = append(builds, windows.Build{Major: 10, Minor: 0, Number: 20344})
	var nodes []*v1.Node
	for _, b := range builds {
		nodes = append(nodes,
			fixture.Node("win-"+b.String(), fixture.NodeOptions{OS: "windows", Build: b.String()}),
			fixture.Node("win-"+b.String()+"-tainted", fixture.NodeOptions{OS: "windows", Build: b.String(), Taints: []v1.Taint{fixture.WindowsTaint}}))
	}
	nodes = append(nodes,
		fixture.Node("linux", fixture.NodeOptions{}),
		fixture.Node("linux-tainted", fixture.NodeOptions{Taints: []v1.Taint{{Key: "os", Value: "linux", Effect: v1.TaintEffectNoSchedule}}}))
	unlabelled := func(name, kernel string, taints ...v1.Taint) *v1.Node {
		n := fixture.Node(name, fixture.NodeOptions{KernelVersion: kernel, Taints: taints})
		n.Labels = map[string]string{v1.LabelHostname: name}
		return n
	}
	return append(nodes,
		unlabelled("unlabelled", ""),
		unlabelled("unlabelled-windows-kernel", "10.0.20348.1"),
		unlabelled("unlabelled-empty-taint", "", v1.Taint{Key: "os", Effect: v1.TaintEffectNoSchedule}))
}

// agreementPods are the release table's images, alone and in the pairs
// that narrow the builds, as bare pods, with .spec.os and as HostProcess
// pods; and Linux pods.
func agreementPods() []*v1.Pod {
	var sets [][]string
	for _, r := range windows.KnownReleases {
		sets = append(sets, []string{"mcr.microsoft.com/windows/servercore:" + r.Token})
	}
	sets = append(sets, []string{img2022, img2025}, []string{img2019, "golang:1.22-nanoserver"}, []string{"golang:1.22-nanoserver"}, []string{imgLinux})
	var pods []*v1.Pod
	for _, images := range sets {
		pods = append(pods,
			podOf(images...),
			with(podOf(images...), func(p *v1.Pod) { p.Spec.OS = &v1.PodOS{Name: v1.Windows} }),
			with(podOf(images...), func(p *v1.Pod) { p.Spec.OS = &v1.PodOS{Name: v1.Linux} }),
			fixture.HostProcess(podOf(images...)))
	}
	return pods
}

func TestPublishedNodesAreTheFiltersNodes(t *testing.T) {
	nodes := agreementNodes()
	for _, mode := range []string{"containerd", "exact"} {
		p := newPublisher(t, func(a *config.WindowsAwareArgs) { a.CompatibilityMode = mode })
		for _, pod := range agreementPods() {
			published := pod.DeepCopy()
			if _, outcome := p.Publish(published); outcome == OutcomeConflict {
				continue // untouched; the Filter admits no node
			}
			d := p.decide(pod)
			name := fmt.Sprintf("%s: pod %v (os %s)", mode, podImagesOf(pod), d.OS())
			for _, node := range nodes {
				v := judge(t, d, pod, published, node)
				if v.scheduler == v.published {
					continue
				}
				if _, labelled := node.Labels[v1.LabelOSStable]; !labelled && v.scheduler && published.Spec.NodeSelector[v1.LabelOSStable] == windows.OSLinux {
					continue // a node no kubelet registers: Linux to the Filter, not to the published selector
				}
				t.Errorf("%s: on node %s the Filter admits %v, the published pod %v; spec %s", name, node.Name, v.scheduler, v.published, describe(published))
			}
		}
	}
}
