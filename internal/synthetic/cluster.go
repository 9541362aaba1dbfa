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
// them, what a user of the stock scheduler has to write into each pod to get
// the same placement, and which pools may run each pod (the oracle that every
// benchmark checks placements against).
//
// The oracle is written out by hand from the Windows compatibility rules in
// /work/shared/docs/windows-facts.md (process isolation, containerd rule); it
// does not call the plugins or package windows, so a bug there shows up as a
// disagreement instead of being copied into the expectation.
package synthetic

import (
	"fmt"
	"strconv"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// Label keys.
const (
	LabelOS    = v1.LabelOSStable     // kubernetes.io/os
	LabelBuild = v1.LabelWindowsBuild // node.kubernetes.io/windows-build
	// LabelPool names a node's pool, for reports and checks only: no
	// scheduling decision reads it.
	LabelPool = "bench.windows-aware.io/pool"
	// LabelKind names a pod's kind, for checks only.
	LabelKind = "bench.windows-aware.io/kind"
)

// Profile names.
const (
	ProfileWindowsAware = "windows-aware"
	ProfileStock        = "default-scheduler"
)

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
	{Name: "linux", OS: "linux", Slots: 7},
	{Name: "win2019", OS: "windows", Build: "10.0.17763", Revisions: []int{6893, 7009, 7136}, Slots: 1},
	{Name: "win2022", OS: "windows", Build: "10.0.20348", Revisions: []int{3207, 3328, 3453}, Slots: 1},
	{Name: "win2025", OS: "windows", Build: "10.0.26100", Revisions: []int{3476, 3775, 4061}, Slots: 1},
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

// WindowsTaint is the taint every Windows node carries, as upstream's
// documentation recommends.
var WindowsTaint = v1.Taint{Key: "os", Value: "windows", Effect: v1.TaintEffectNoSchedule}

var zones = []string{"eastus-1", "eastus-2", "eastus-3"}

// Node returns the i-th node of a cluster, as its kubelet would register it.
func Node(i int) *v1.Node {
	p := PoolOf(i)
	name := fmt.Sprintf("node-%05d", i)
	labels := map[string]string{
		"kubernetes.io/hostname":           name,
		"kubernetes.io/arch":               "amd64",
		"beta.kubernetes.io/arch":          "amd64",
		LabelOS:                            p.OS,
		"beta.kubernetes.io/os":            p.OS,
		"node.kubernetes.io/instance-type": "Standard_D4s_v5",
		"topology.kubernetes.io/region":    "eastus",
		"topology.kubernetes.io/zone":      zones[i%len(zones)],
		"agentpool":                        p.Name,
		LabelPool:                          p.Name,
	}
	kernel := "6.8.0-1021-azure"
	osImage := "Ubuntu 24.04.2 LTS"
	var taints []v1.Taint
	if p.OS == "windows" {
		labels[LabelBuild] = p.Build
		kernel = p.Build + "." + strconv.Itoa(p.Revisions[(i/10)%len(p.Revisions)])
		osImage = "Windows Server Datacenter"
		taints = []v1.Taint{WindowsTaint}
	}
	capacity := v1.ResourceList{
		v1.ResourcePods:   *resource.NewQuantity(110, resource.DecimalSI),
		v1.ResourceCPU:    resource.MustParse("4"),
		v1.ResourceMemory: resource.MustParse("32Gi"),
	}
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(name), Labels: labels},
		Spec:       v1.NodeSpec{Taints: taints},
		Status: v1.NodeStatus{
			Capacity:    capacity,
			Allocatable: capacity,
			Phase:       v1.NodeRunning,
			Conditions:  []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
			NodeInfo: v1.NodeSystemInfo{
				KernelVersion:           kernel,
				OSImage:                 osImage,
				OperatingSystem:         p.OS,
				Architecture:            "amd64",
				ContainerRuntimeVersion: "containerd://2.1.4",
				KubeletVersion:          "v1.37.1",
			},
		},
	}
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
	// Pools may run the pod: the oracle.
	Pools []string
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

// Kinds are the pods of the mix. The images are real tags; which builds they
// need follows from the tag token (ltsc2019 = 10.0.17763, ltsc2022 =
// 10.0.20348, ltsc2025 = 10.0.26100), and which hosts run them from the
// process-isolation rule: a 2019 image only on a 2019 host; a 2022 image on a
// 2022 or a 2025 host; a 2025 image only on a 2025 host.
var Kinds = []Kind{
	{
		Name:          "linux",
		Images:        []string{"registry.k8s.io/e2e-test-images/agnhost:2.53"},
		Pools:         []string{"linux"},
		StockSelector: map[string]string{LabelOS: "linux"},
	},
	{
		Name:                 "win2019",
		Images:               []string{"mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019"},
		Pools:                []string{"win2019"},
		Best:                 "win2019",
		StockSelector:        map[string]string{LabelOS: "windows", LabelBuild: "10.0.17763"},
		StockTolerateWindows: true,
	},
	{
		Name:                 "win2022",
		Images:               []string{"mcr.microsoft.com/dotnet/aspnet:8.0-nanoserver-ltsc2022"},
		Pools:                []string{"win2022", "win2025"},
		Best:                 "win2022",
		StockSelector:        map[string]string{LabelOS: "windows"},
		StockRequiredBuilds:  []string{"10.0.20348", "10.0.26100"},
		StockPreferredBuild:  "10.0.20348",
		StockTolerateWindows: true,
	},
	{
		Name:                 "win2025",
		Images:               []string{"mcr.microsoft.com/windows/server:ltsc2025"},
		Pools:                []string{"win2025"},
		Best:                 "win2025",
		StockSelector:        map[string]string{LabelOS: "windows", LabelBuild: "10.0.26100"},
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
		Pools:                []string{"win2025"},
		Best:                 "win2025",
		StockSelector:        map[string]string{LabelOS: "windows", LabelBuild: "10.0.26100"},
		StockTolerateWindows: true,
	},
	{
		// HostProcess runs on the host itself: any Windows build.
		Name:                 "hostprocess",
		Images:               []string{"mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image:v1.0.0"},
		HostProcess:          true,
		Pools:                []string{"win2019", "win2022", "win2025"},
		StockSelector:        map[string]string{LabelOS: "windows"},
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

// Allows reports whether the oracle lets a pod of kind k run on node.
func (k Kind) Allows(node *v1.Node) bool {
	for _, p := range k.Pools {
		pool, ok := poolByName(p)
		if !ok {
			continue
		}
		if node.Labels[LabelOS] == pool.OS && node.Labels[LabelBuild] == pool.Build {
			return true
		}
	}
	return false
}

func poolByName(name string) (Pool, bool) {
	for _, p := range Pools {
		if p.Name == name {
			return p, true
		}
	}
	return Pool{}, false
}

// Pod returns a pod of kind k for profile: for the windows-aware profile
// the pod carries no selector and no toleration; for the stock profile it
// carries what the user has to write.
func (k Kind) Pod(name, profile string) *v1.Pod {
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:      name,
			Namespace: "default",
			UID:       types.UID(name),
			Labels:    map[string]string{LabelKind: k.Name, "app": k.Name},
		},
		Spec: v1.PodSpec{SchedulerName: profile},
	}
	req := v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m"), v1.ResourceMemory: resource.MustParse("500Mi")}
	for i, img := range k.InitImages {
		pod.Spec.InitContainers = append(pod.Spec.InitContainers, v1.Container{
			Name: fmt.Sprintf("init-%d", i), Image: img, Resources: v1.ResourceRequirements{Requests: req},
		})
	}
	for i, img := range k.Images {
		pod.Spec.Containers = append(pod.Spec.Containers, v1.Container{
			Name: fmt.Sprintf("c-%d", i), Image: img, Resources: v1.ResourceRequirements{Requests: req},
		})
	}
	if k.HostProcess {
		pod.Spec.HostNetwork = true
		pod.Spec.SecurityContext = &v1.PodSecurityContext{WindowsOptions: &v1.WindowsSecurityContextOptions{
			HostProcess:   ptr.To(true),
			RunAsUserName: ptr.To(`NT AUTHORITY\SYSTEM`),
		}}
	}
	if profile == ProfileWindowsAware {
		return pod
	}
	if len(k.StockSelector) > 0 {
		pod.Spec.NodeSelector = map[string]string{}
		for key, v := range k.StockSelector {
			pod.Spec.NodeSelector[key] = v
		}
	}
	var aff v1.NodeAffinity
	if len(k.StockRequiredBuilds) > 0 {
		aff.RequiredDuringSchedulingIgnoredDuringExecution = &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
			MatchExpressions: []v1.NodeSelectorRequirement{{Key: LabelBuild, Operator: v1.NodeSelectorOpIn, Values: k.StockRequiredBuilds}},
		}}}
	}
	if k.StockPreferredBuild != "" {
		aff.PreferredDuringSchedulingIgnoredDuringExecution = []v1.PreferredSchedulingTerm{{
			Weight: 100,
			Preference: v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{
				{Key: LabelBuild, Operator: v1.NodeSelectorOpIn, Values: []string{k.StockPreferredBuild}},
			}},
		}}
	}
	if aff.RequiredDuringSchedulingIgnoredDuringExecution != nil || aff.PreferredDuringSchedulingIgnoredDuringExecution != nil {
		pod.Spec.Affinity = &v1.Affinity{NodeAffinity: &aff}
	}
	if k.StockTolerateWindows {
		pod.Spec.Tolerations = []v1.Toleration{{
			Key: WindowsTaint.Key, Operator: v1.TolerationOpEqual, Value: WindowsTaint.Value, Effect: WindowsTaint.Effect,
		}}
	}
	return pod
}
