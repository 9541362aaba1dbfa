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
	"context"
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/windows-aware/windows-aware/internal/controlplane"
	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/oracle"
)

// podKind is one kind of windows-aware test pod: its image and what it
// needs of a node.
type podKind struct {
	name, image string
	need        need
}

var (
	kindLTSC2019 = podKind{"ltsc2019", "mcr.microsoft.com/dotnet/aspnet:8.0-nanoserver-1809", need{"windows", oracle.Build2019}}
	kindLTSC2022 = podKind{"ltsc2022", "mcr.microsoft.com/windows/nanoserver:ltsc2022", need{"windows", oracle.Build2022}}
	kindLTSC2025 = podKind{"ltsc2025", "mcr.microsoft.com/windows/servercore:ltsc2025", need{"windows", oracle.Build2025}}
	kindLinux    = podKind{"linux", "nginx:1.27", need{"linux", ""}}
)

// nodeFor returns a node that runs kind's pods, with room for pods pods.
func nodeFor(name string, kind podKind, pods int) *v1.Node {
	o := fixture.NodeOptions{OS: kind.need.os, Build: kind.need.build, Pods: pods}
	if kind.need.os == "windows" {
		o.Taints = []v1.Taint{fixture.WindowsTaint}
	}
	return fixture.Node(name, o)
}

const (
	// faultPodsPerKind pods of each of the four kinds: 1,100 pods.
	faultPodsPerKind = 275
	// faultFirstNodePods is the room of the one node per kind that exists
	// when the fault strikes: at most 4 × 25 = 100 pods can be bound by
	// then, so at least 1,000 are pending, whatever the timing.
	faultFirstNodePods = 25
	// faultOutage is how long the component stays dead.
	faultOutage = 3 * time.Second
)

// faultSchedulerArgs keep the shipped configuration's leader election but
// lengthen its lease. A leader that cannot renew its lease within the
// renew deadline (10 s shipped) ends its process by design, so that two
// schedulers never bind at once; a kube-apiserver restart on a loaded
// machine can take longer than that, and these tests are about the
// process surviving the outage.
var faultSchedulerArgs = []string{
	"-v=2",
	"--leader-elect-lease-duration=120s",
	"--leader-elect-renew-deadline=100s",
}

// TestAPIServerKilledWhilePodsPending: with 1,100 windows-aware pods of
// four kinds (ltsc2019, ltsc2022, ltsc2025, Linux) pending and the
// scheduler binding the first of them, kube-apiserver is killed with
// SIGKILL and restarted on the same etcd. The same scheduler process
// carries on, and every pod ends bound exactly once, on a node that runs
// it.
func TestAPIServerKilledWhilePodsPending(t *testing.T) {
	componentKilledWhilePodsPending(t, controlplane.KubeAPIServer)
}

// TestEtcdKilledWhilePodsPending: the same with etcd killed and restarted
// on its data directory, kube-apiserver left running.
func TestEtcdKilledWhilePodsPending(t *testing.T) {
	componentKilledWhilePodsPending(t, controlplane.Etcd)
}

func componentKilledWhilePodsPending(t *testing.T, component string) {
	began := time.Now()
	e := ownCluster(t, faultSchedulerArgs...)
	ns := e.plainNamespace("faults")
	h := e.watchHistory(ns)
	scheduler := waitLeaderProcess(t, e.c)
	kinds := []podKind{kindLTSC2019, kindLTSC2022, kindLTSC2025, kindLinux}

	// The pods, before any node: none can bind.
	var pods []*v1.Pod
	needs := map[string]need{}
	for _, k := range kinds {
		for i := range faultPodsPerKind {
			p := newPod(fmt.Sprintf("%s-%03d", k.name, i), windowsAware, k.image)
			pods = append(pods, p)
			needs[p.Name] = k.need
		}
	}
	e.createPodsParallel(ns, pods)

	// One small node per kind; strike as soon as the first pod binds.
	var firstNodes []*v1.Node
	for _, k := range kinds {
		n := nodeFor("first-"+k.name, k, faultFirstNodePods)
		firstNodes = append(firstNodes, n)
		e.addNodeRetrying(n)
	}
	select {
	case <-h.firstBound:
	case <-time.After(time.Minute):
		t.Fatalf("no pod bound within a minute of its node joining")
	}
	if err := e.c.Kill(component); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	seenBound := h.boundCount()
	t.Logf("killed %s with %d pods pending (%d seen bound; at most %d can be, the first nodes' room)",
		component, len(pods)-seenBound, seenBound, len(firstNodes)*faultFirstNodePods)
	if left := len(pods) - len(firstNodes)*faultFirstNodePods; left < 1000 {
		t.Fatalf("only %d pods are sure to be pending at the kill, want at least 1,000", left)
	}

	time.Sleep(faultOutage)
	ctx, cancel := context.WithTimeout(e.ctx, 4*time.Minute)
	defer cancel()
	if err := e.c.Restart(ctx, component); err != nil {
		t.Fatalf("restarting %s: %v", component, err)
	}
	t.Logf("%s serves again %s after the kill", component, time.Since(killed).Round(100*time.Millisecond))
	if scheduler.Exited() {
		t.Fatalf("the scheduler (pid %d) exited during the outage; log %s:\n%s", scheduler.Pid(), scheduler.LogFile, scheduler.Tail(3000))
	}

	// Room for every pod, on nodes that join after the restart: the
	// scheduler must see them through its re-established watches.
	for _, k := range kinds {
		for i := range 3 {
			e.addNodeRetrying(nodeFor(fmt.Sprintf("after-%s-%d", k.name, i), k, 110))
		}
	}
	e.waitBound(ns, h, pods, 4*time.Minute)
	t.Logf("all %d pods bound %s after the kill", len(pods), time.Since(killed).Round(100*time.Millisecond))

	e.checkBoundOnce(ns, h, needs)
	if scheduler.Exited() {
		t.Errorf("the scheduler (pid %d) exited", scheduler.Pid())
	}
	if now, err := e.c.SchedulerLeader(); err != nil || now != scheduler {
		t.Errorf("the scheduler leading now is not the one that led before the kill (%v)", err)
	}
	for _, line := range schedulerLogProblems(scheduler) {
		t.Errorf("scheduler log: %s", line)
	}
	e.schedulersAlive()
	t.Logf("test took %s", time.Since(began).Round(100*time.Millisecond))
}

// waitBound waits until every pod has been seen bound, failing with the
// pending pods' conditions after timeout.
func (e *env) waitBound(ns string, h *history, pods []*v1.Pod, timeout time.Duration) {
	e.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		var pending []string
		for _, p := range pods {
			if len(h.pod(p.Name).nodes) == 0 {
				pending = append(pending, p.Name)
			}
		}
		if len(pending) == 0 {
			return
		}
		if time.Now().After(deadline) {
			got := e.getPod(ns, pending[0])
			e.t.Fatalf("%d of %d pods still pending after %s; %s: %+v", len(pending), len(pods), timeout, pending[0], got.Status.Conditions)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// checkBoundOnce checks every pod of ns against the API: bound, to one
// node in its whole life, on a node that runs it, never recreated, and
// the scheduler's own record (its Scheduled events) naming that node at
// most once. The binding subresource refuses to bind a bound pod, so a
// second binding would show as a second Scheduled event (or as a node
// change, if a pod were ever rebound by another route).
func (e *env) checkBoundOnce(ns string, h *history, needs map[string]need) {
	t := e.t
	t.Helper()
	list, err := e.client.CoreV1().Pods(ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != len(needs) {
		t.Errorf("%d pods listed, want %d", len(list.Items), len(needs))
	}
	nodes, err := e.client.CoreV1().Nodes().List(e.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nodeByName := map[string]*v1.Node{}
	room := map[string]int64{}
	for i := range nodes.Items {
		n := &nodes.Items[i]
		nodeByName[n.Name] = n
		room[n.Name] = n.Status.Allocatable.Pods().Value()
	}
	count, eventNodes, refused := e.scheduledEvents(ns)
	onNode := map[string]int64{}
	notScheduledTrue := 0
	for _, p := range list.Items {
		track := h.pod(p.Name)
		switch {
		case p.Spec.NodeName == "":
			t.Errorf("pod %s is not bound: %+v", p.Name, p.Status.Conditions)
			continue
		case len(track.nodes) != 1 || track.nodes[0] != p.Spec.NodeName:
			t.Errorf("pod %s: the watch saw nodes %v, the API says %s", p.Name, track.nodes, p.Spec.NodeName)
		case len(track.uids) != 1 || track.uids[0] != p.UID || track.deleted:
			t.Errorf("pod %s was recreated or deleted: uids %v, deleted %v", p.Name, track.uids, track.deleted)
		}
		if ok, why := nodeRuns(nodeByName[p.Spec.NodeName], needs[p.Name]); !ok {
			t.Errorf("pod %s (%s) is on %s, which does not run it: %s", p.Name, needs[p.Name], p.Spec.NodeName, why)
		}
		if count[p.Name] > 1 {
			t.Errorf("pod %s has %d Scheduled events (nodes %v)", p.Name, count[p.Name], eventNodes[p.Name])
		}
		for _, n := range eventNodes[p.Name] {
			if n != p.Spec.NodeName {
				t.Errorf("pod %s: a Scheduled event names node %s, the pod is on %s", p.Name, n, p.Spec.NodeName)
			}
		}
		onNode[p.Spec.NodeName]++
		if c := podCondition(&p, v1.PodScheduled); c == nil || c.Status != v1.ConditionTrue {
			notScheduledTrue++
		}
	}
	// Not the requirement, but what an operator would see: bindings the
	// API server refused as already done (a binding whose response the
	// outage lost, retried), bound pods whose PodScheduled condition a
	// late failure report overwrote, nodes given more pods than their room.
	t.Logf("%d pods with a Scheduled event; %d bindings refused as already done; %d bound pods without PodScheduled=True",
		len(count), len(refused), notScheduledTrue)
	for i, r := range refused {
		if i == 3 {
			break
		}
		t.Logf("  refused: %s", r)
	}
	for name, n := range onNode {
		if room[name] > 0 && n > room[name] {
			t.Logf("  node %s holds %d pods, its room is %d", name, n, room[name])
		}
	}
}

func podCondition(p *v1.Pod, kind v1.PodConditionType) *v1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == kind {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}
