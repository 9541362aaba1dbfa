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

// Package synthetic describes the synthetic clusters the benchmarks run on:
// node pools of mixed OS and Windows builds, the mix of pods scheduled onto
// them, and what a user of the stock scheduler has to write into each pod to
// get the same placement. Which pools may run each pod is internal/oracle's
// answer, not the plugins'.
package synthetic

import (
	"fmt"
	"strconv"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/oracle"
)

// Label keys of the benchmarks' own, for reports and checks only: no
// scheduling decision reads them.
const (
	// LabelPool names a node's pool.
	LabelPool = "bench.windows-aware.io/pool"
	// LabelKind names a pod's kind.
	LabelKind = "bench.windows-aware.io/kind"
)

// Profile names.
const (
	ProfileWindowsAware = "windows-aware"
	ProfileStock        = v1.DefaultSchedulerName
)

// Variant is how a pod of the mix is written, and for which profile.
type Variant string

// Variants; their values are the perf templates' "variant" parameter.
const (
	// WindowsAware: the windows-aware profile, no selector, no toleration.
	WindowsAware Variant = "windows-aware"
	// StockSelectors: the stock profile, with the selectors, affinity and
	// toleration a user writes for the same placement.
	StockSelectors Variant = "stock"
	// StockPlain: the stock profile and nothing else. Windows pods land on
	// Linux (the Windows nodes' taint repels them): the cost of scheduling
	// the pods at all, misplaced.
	StockPlain Variant = "stock-no-selectors"
)

// Profile is the scheduler profile a variant's pods ask for.
func (v Variant) Profile() string {
	if v == WindowsAware {
		return ProfileWindowsAware
	}
	return ProfileStock
}

// Pool is a set of alike nodes.
type Pool struct {
	Name  string
	OS    string
	Build string // node.kubernetes.io/windows-build, "" on Linux
	// Revisions the pool's nodes run, in turn (kernelVersion
	// Major.Minor.Build.Revision on Windows).
	Revisions []int
	// Slots is the pool's share of every 10 nodes.
	Slots int
}

// Pools are the node pools: 70% Linux, 10% each Windows Server 2019, 2022
// and 2025, every Windows node tainted os=windows:NoSchedule.
var Pools = []Pool{
	{Name: "linux", OS: oracle.Linux, Slots: 7},
	{Name: "win2019", OS: oracle.Windows, Build: oracle.Build2019, Revisions: []int{6893, 7009, 7136}, Slots: 1},
	{Name: "win2022", OS: oracle.Windows, Build: oracle.Build2022, Revisions: []int{3207, 3328, 3453}, Slots: 1},
	{Name: "win2025", OS: oracle.Windows, Build: oracle.Build2025, Revisions: []int{3476, 3775, 4061}, Slots: 1},
}

// PoolOf returns the pool of the i-th node: pools are interleaved, slot by
// slot, so that every stretch of ten nodes holds each pool in its share.
func PoolOf(i int) Pool {
	slot := i % 10
	for _, p := range Pools {
		if slot < p.Slots {
			return p
		}
		slot -= p.Slots
	}
	panic("pool slots do not add up to 10")
}

var zones = []string{"eastus-1", "eastus-2", "eastus-3"}

// Node returns the i-th node of a cluster, as its kubelet would register it
// on a cloud: every Windows node tainted os=windows:NoSchedule.
func Node(i int) *v1.Node {
	p := PoolOf(i)
	o := fixture.NodeOptions{
		OS: p.OS, Build: p.Build, CPU: "4", Memory: "32Gi", Pods: 110,
		KernelVersion: "6.8.0-1021-azure", OSImage: "Ubuntu 24.04.2 LTS",
		Labels: map[string]string{
			"beta.kubernetes.io/arch":          "amd64",
			"beta.kubernetes.io/os":            p.OS,
			"node.kubernetes.io/instance-type": "Standard_D4s_v5",
			"topology.kubernetes.io/region":    "eastus",
			"topology.kubernetes.io/zone":      zones[i%len(zones)],
			"agentpool":                        p.Name,
			LabelPool:                          p.Name,
		},
	}
	if p.OS == oracle.Windows {
		o.KernelVersion = p.Build + "." + strconv.Itoa(p.Revisions[(i/10)%len(p.Revisions)])
		o.OSImage = "Windows Server Datacenter"
		o.Taints = []v1.Taint{fixture.WindowsTaint}
	}
	return fixture.Node(fmt.Sprintf("node-%05d", i), o)
}

// Nodes returns a cluster of n nodes.
func Nodes(n int) []*v1.Node {
	nodes := make([]*v1.Node, n)
	for i := range nodes {
		nodes[i] = Node(i)
	}
	return nodes
}

// Kind is one kind of pod in the mix.
type Kind struct {
	Name        string
	InitImages  []string
	Images      []string
	HostProcess bool
	// Best is the pool WindowsAware's score must rank first (the exact
	// build), or "" when every feasible node is alike to the pod.
	Best string

	// What a user of the stock scheduler writes to get the same placement:
	// a node selector, required node affinity on the build label when more
	// than one build runs the pod, a preferred term for the exact build,
	// and the toleration of the Windows taint.
	StockSelector        map[string]string
	StockRequiredBuilds  []string
	StockPreferredBuild  string
	StockTolerateWindows bool
}

// Kinds are the pods of the mix, with real image tags: a 2019 image runs
// only on a 2019 host; a 2022 image on a 2022 or a 2025 host; a 2025 image
// only on a 2025 host (docs/windows-facts.md).
var Kinds = []Kind{
	{
		Name:          "linux",
		Images:        []string{"registry.k8s.io/e2e-test-images/agnhost:2.53"},
		StockSelector: map[string]string{v1.LabelOSStable: oracle.Linux},
	},
	{
		Name:                 "win2019",
		Images:               []string{"mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019"},
		Best:                 "win2019",
		StockSelector:        map[string]string{v1.LabelOSStable: oracle.Windows, v1.LabelWindowsBuild: oracle.Build2019},
		StockTolerateWindows: true,
	},
	{
		Name:                 "win2022",
		Images:               []string{"mcr.microsoft.com/dotnet/aspnet:8.0-nanoserver-ltsc2022"},
		Best:                 "win2022",
		StockSelector:        map[string]string{v1.LabelOSStable: oracle.Windows},
		StockRequiredBuilds:  []string{oracle.Build2022, oracle.Build2025},
		StockPreferredBuild:  oracle.Build2022,
		StockTolerateWindows: true,
	},
	{
		Name:                 "win2025",
		Images:               []string{"mcr.microsoft.com/windows/server:ltsc2025"},
		Best:                 "win2025",
		StockSelector:        map[string]string{v1.LabelOSStable: oracle.Windows, v1.LabelWindowsBuild: oracle.Build2025},
		StockTolerateWindows: true,
	},
	{
		// An init container and two containers whose images need 2022 and
		// 2025: only a 2025 host runs them all.
		Name:       "multi",
		InitImages: []string{"mcr.microsoft.com/windows/servercore:ltsc2022"},
		Images: []string{
			"mcr.microsoft.com/dotnet/framework/aspnet:4.8.1-20260714-windowsservercore-ltsc2025",
			"mcr.microsoft.com/powershell:lts-nanoserver-ltsc2022",
		},
		Best:                 "win2025",
		StockSelector:        map[string]string{v1.LabelOSStable: oracle.Windows, v1.LabelWindowsBuild: oracle.Build2025},
		StockTolerateWindows: true,
	},
	{
		// HostProcess runs on the host itself: any Windows build.
		Name:                 "hostprocess",
		Images:               []string{"mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image:v1.0.0"},
		HostProcess:          true,
		StockSelector:        map[string]string{v1.LabelOSStable: oracle.Windows},
		StockTolerateWindows: true,
	},
}

// KindByName returns the kind of that name.
func KindByName(name string) (Kind, bool) {
	for _, k := range Kinds {
		if k.Name == name {
			return k, true
		}
	}
	return Kind{}, false
}

// Mix is the order pods of the mix are created in, one per slot of ten:
// half Linux, a tenth each of the Windows kinds.
var Mix = []string{"linux", "win2019", "linux", "win2022", "linux", "win2025", "linux", "multi", "linux", "hostprocess"}

// KindOf returns the kind of the i-th pod of the mix.
func KindOf(i int) Kind {
	k, _ := KindByName(Mix[i%len(Mix)])
	return k
}

// Allows reports whether the oracle lets a pod of kind k run on node. It
// panics when the oracle does not know an image of k (TestOracleKnowsKinds).
func (k Kind) Allows(node *v1.Node) bool {
	v, err := oracle.Check(k.Pod("", WindowsAware), node)
	if err != nil {
		panic(err)
	}
	return v == oracle.OK
}

// Pod returns a pod of kind k written as variant v: for WindowsAware and
// StockPlain it carries no selector and no toleration; for StockSelectors
// it carries what the user has to write.
func (k Kind) Pod(name string, v Variant) *v1.Pod {
	pod := fixture.Pod(name, v.Profile(), k.Images...)
	pod.Namespace = "default"
	pod.UID = types.UID(name)
	pod.Labels = map[string]string{LabelKind: k.Name, "app": k.Name}
	req := v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m"), v1.ResourceMemory: resource.MustParse("500Mi")}
	for i, img := range k.InitImages {
		pod.Spec.InitContainers = append(pod.Spec.InitContainers, v1.Container{Name: fmt.Sprintf("init-%d", i), Image: img})
	}
	for _, cs := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			cs[i].Resources.Requests = req
		}
	}
	if k.HostProcess {
		fixture.HostProcess(pod)
	}
	if v != StockSelectors {
		return pod
	}
	if len(k.StockSelector) > 0 {
		pod.Spec.NodeSelector = map[string]string{}
		for key, val := range k.StockSelector {
			pod.Spec.NodeSelector[key] = val
		}
	}
	var aff v1.NodeAffinity
	if len(k.StockRequiredBuilds) > 0 {
		aff.RequiredDuringSchedulingIgnoredDuringExecution = &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
			MatchExpressions: []v1.NodeSelectorRequirement{{Key: v1.LabelWindowsBuild, Operator: v1.NodeSelectorOpIn, Values: k.StockRequiredBuilds}},
		}}}
	}
	if k.StockPreferredBuild != "" {
		aff.PreferredDuringSchedulingIgnoredDuringExecution = []v1.PreferredSchedulingTerm{{
			Weight: 100,
			Preference: v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{
				{Key: v1.LabelWindowsBuild, Operator: v1.NodeSelectorOpIn, Values: []string{k.StockPreferredBuild}},
			}},
		}}
	}
	if aff.RequiredDuringSchedulingIgnoredDuringExecution != nil || aff.PreferredDuringSchedulingIgnoredDuringExecution != nil {
		pod.Spec.Affinity = &v1.Affinity{NodeAffinity: &aff}
	}
	if k.StockTolerateWindows {
		pod.Spec.Tolerations = []v1.Toleration{fixture.WindowsToleration}
	}
	return pod
}
