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
	"sort"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/oracle"
)

const (
	upgradeNodes       = 4
	upgradeBoundPods   = 120 // ltsc2019, bound before the upgrade
	upgradeWaiting2022 = 200
	upgradeWaiting2025 = 10
	// upgradedKernel is the kernel a node reports after its upgrade.
	upgradedKernel = oracle.Build2022 + ".2340"
)

// TestWindowsNodesUpgradedInPlace: four Windows Server 2019 nodes hold
// 120 ltsc2019 pods, while 200 ltsc2022 and 10 ltsc2025 pods wait, since
// no node runs them. The nodes are upgraded in place to Windows Server
// 2022, one after another, the way a kubelet reports it: the
// windows-build label (10.0.17763 → 10.0.20348) and the kernel version
// change in two writes, in either order. The ltsc2022 pods follow the new
// build onto the upgraded nodes; the ltsc2025 pods keep waiting (a 2022
// host does not run them) with the build reason; the bound ltsc2019 pods
// are untouched; and no pod is bound at a revision where its node could
// not run it.
//
// That last check is exact (history.nodeAt orders each binding against
// the node's writes by etcd revision), and a failure of it is the
// scheduler's: only pods of the new build wait during the upgrade and
// builds only move forward, so no decision taken before a relabel can be
// bound after it to a node that no longer runs the pod. (Were pods of the
// old build waiting too, a decision in flight could be overtaken by the
// relabel, since kube-scheduler binds without checking the node again;
// TestChurn covers that case.)
func TestWindowsNodesUpgradedInPlace(t *testing.T) {
	began := time.Now()
	e := requireCluster(t)
	ns := e.namespace()
	nodes, err := e.client.CoreV1().Nodes().List(e.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes.Items {
		if ok, _ := nodeRuns(&n, kindLTSC2022.need); ok {
			t.Fatalf("node %s, left by another test, runs ltsc2022 pods: they would not wait", n.Name)
		}
	}
	h := e.watchHistory(ns)

	var names []string
	for i := range upgradeNodes {
		name := fmt.Sprintf("upgrade-%d", i)
		names = append(names, name)
		e.createNodes(fixture.Node(name, fixture.NodeOptions{
			OS: "windows", Build: oracle.Build2019, KernelVersion: oracle.Build2019 + ".5820",
			Taints: []v1.Taint{fixture.WindowsTaint},
		}))
	}
	needs := map[string]need{}
	podsOf := func(kind podKind, n int) []*v1.Pod {
		var pods []*v1.Pod
		for i := range n {
			p := newPod(fmt.Sprintf("%s-%03d", kind.name, i), windowsAware, kind.image)
			needs[p.Name] = kind.need
			pods = append(pods, p)
		}
		return pods
	}

	// The pods the upgrade must leave alone.
	old := podsOf(kindLTSC2019, upgradeBoundPods)
	e.createPodsParallel(ns, old)
	e.waitBound(ns, h, old, 2*time.Minute)
	type snapshot struct {
		uid      types.UID
		node, rv string
	}
	before := map[string]snapshot{}
	list, err := e.client.CoreV1().Pods(ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range list.Items {
		before[p.Name] = snapshot{p.UID, p.Spec.NodeName, p.ResourceVersion}
	}

	// The pods that wait for the upgrade, tried and found unschedulable.
	waiting2022 := podsOf(kindLTSC2022, upgradeWaiting2022)
	waiting2025 := podsOf(kindLTSC2025, upgradeWaiting2025)
	waiting := append(append([]*v1.Pod(nil), waiting2022...), waiting2025...)
	e.createPodsParallel(ns, waiting)
	e.waitUnschedulable(ns, waiting, 2*time.Minute)
	if n := h.boundCount(); n != len(old) {
		t.Fatalf("%d pods bound before the upgrade, want only the %d ltsc2019 pods", n, len(old))
	}
	t.Logf("%d ltsc2019 pods bound, %d ltsc2022 and %d ltsc2025 pods unschedulable; upgrading", len(old), len(waiting2022), len(waiting2025))

	// The rolling upgrade.
	upgraded := time.Now()
	for i, name := range names {
		label := func() error {
			return e.updateNode(name, false, func(n *v1.Node) { n.Labels[v1.LabelWindowsBuild] = oracle.Build2022 })
		}
		kernel := func() error {
			return e.updateNode(name, true, func(n *v1.Node) {
				n.Status.NodeInfo.KernelVersion = upgradedKernel
				n.Status.NodeInfo.OSImage = "Windows Server 2022 Datacenter"
			})
		}
		writes := []func() error{label, kernel}
		if i%2 == 1 {
			writes = []func() error{kernel, label}
		}
		for _, write := range writes {
			if err := write(); err != nil {
				t.Fatalf("upgrading %s: %v", name, err)
			}
			time.Sleep(200 * time.Millisecond)
		}
		time.Sleep(time.Second) // pods follow each node before the next
	}
	e.waitBound(ns, h, waiting2022, 2*time.Minute)
	t.Logf("every ltsc2022 pod bound %s after the upgrade began", time.Since(upgraded).Round(100*time.Millisecond))
	e.staysPending(ns, waiting2025[0].Name, 2*time.Second)

	// Check.
	list, err = e.client.CoreV1().Pods(ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	count, eventNodes, _ := e.scheduledEvents(ns)
	perNode := map[string]int{}
	for _, p := range list.Items {
		nd := needs[p.Name]
		track := h.pod(p.Name)
		if b, ok := before[p.Name]; ok {
			if p.UID != b.uid || p.Spec.NodeName != b.node || p.ResourceVersion != b.rv {
				t.Errorf("bound pod %s was touched: uid %s node %s version %s, before the upgrade %s %s %s",
					p.Name, p.UID, p.Spec.NodeName, p.ResourceVersion, b.uid, b.node, b.rv)
			}
		}
		if nd.build == oracle.Build2025 {
			c := podCondition(&p, v1.PodScheduled)
			switch {
			case p.Spec.NodeName != "":
				t.Errorf("ltsc2025 pod %s bound to %s", p.Name, p.Spec.NodeName)
			case c == nil || c.Status != v1.ConditionFalse || c.Reason != v1.PodReasonUnschedulable ||
				!strings.Contains(c.Message, "node(s) had an incompatible Windows build"):
				t.Errorf("ltsc2025 pod %s waits without the build reason: %+v", p.Name, c)
			}
			continue
		}
		if len(track.nodes) != 1 || track.nodes[0] != p.Spec.NodeName || len(track.uids) != 1 {
			t.Errorf("pod %s: the watch saw nodes %v and uids %v, the API says %s", p.Name, track.nodes, track.uids, p.Spec.NodeName)
			continue
		}
		if got, why := h.judgeBinding(track, nd, time.Time{}, 0); got != placedFitting {
			t.Errorf("pod %s (%s) was bound to %s at revision %d, when the node could not run it: %s", p.Name, nd, p.Spec.NodeName, track.boundRV, why)
		}
		if count[p.Name] > 1 || (len(eventNodes[p.Name]) > 0 && eventNodes[p.Name][0] != p.Spec.NodeName) {
			t.Errorf("pod %s on %s: %d Scheduled events naming %v", p.Name, p.Spec.NodeName, count[p.Name], eventNodes[p.Name])
		}
		if nd.build == oracle.Build2022 {
			perNode[p.Spec.NodeName]++
		}
	}
	for _, p := range h.problemsSeen() {
		t.Errorf("history: %s", p)
	}
	var spread []string
	for _, name := range names {
		spread = append(spread, fmt.Sprintf("%s ×%d", name, perNode[name]))
	}
	sort.Strings(spread)
	t.Logf("ltsc2022 pods by upgraded node: %s; test took %s", strings.Join(spread, ", "), time.Since(began).Round(100*time.Millisecond))
	e.schedulersAlive()
}

// waitUnschedulable waits until every pod has been tried and found
// unschedulable (PodScheduled=False, reason Unschedulable).
func (e *env) waitUnschedulable(ns string, pods []*v1.Pod, timeout time.Duration) {
	e.t.Helper()
	want := map[string]bool{}
	for _, p := range pods {
		want[p.Name] = true
	}
	deadline := time.Now().Add(timeout)
	for {
		list, err := e.client.CoreV1().Pods(ns).List(e.ctx, metav1.ListOptions{})
		if err != nil {
			e.t.Fatal(err)
		}
		left := 0
		for _, p := range list.Items {
			if !want[p.Name] {
				continue
			}
			if p.Spec.NodeName != "" {
				e.t.Fatalf("pod %s was bound to %s, want it unschedulable", p.Name, p.Spec.NodeName)
			}
			if c := podCondition(&p, v1.PodScheduled); c == nil || c.Reason != v1.PodReasonUnschedulable {
				left++
			}
		}
		if left == 0 {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("%d of %d pods not yet found unschedulable after %s", left, len(pods), timeout)
		}
		time.Sleep(500 * time.Millisecond)
	}
}
