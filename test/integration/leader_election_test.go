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
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/windows-aware/windows-aware/internal/controlplane"
	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/localproc"
	"github.com/windows-aware/windows-aware/internal/oracle"
)

const (
	// The shipped configuration's leader election.
	leaseDuration = 15 * time.Second
	retryPeriod   = 2 * time.Second
	// How soon after the kill the survivor must hold the lease. A
	// candidate polls the lease every retryPeriod with a jitter factor of
	// 1.2 (client-go leaderelection), so every 2s to 4.4s. It counts the
	// lease duration from when it last saw the lease renewed, which is up
	// to one poll after the dead leader's last renewal (itself before the
	// kill), and takes the lease at its first poll after that:
	// 15s + 4.4s + 4.4s at worst, plus a little for the API.
	maxPoll       = retryPeriod * 22 / 10
	takeoverLimit = leaseDuration + 2*maxPoll + time.Second
	failoverPods  = 300 // per profile
	failoverPool  = "windows-aware.test/pool"
)

// TestLeaderElectionFailover: two scheduler processes run the shipped
// configuration (leader election on the kube-system/kube-scheduler lease).
// With 600 pods pending, half per profile, the leader is killed with
// SIGKILL as soon as it starts binding them. The survivor takes the lease
// within the lease duration (plus its retry period), and every pod ends
// bound, exactly once, where its profile puts it.
func TestLeaderElectionFailover(t *testing.T) {
	e := requireCluster(t)
	ns := e.namespace()
	c := e.c

	running := 0
	for _, p := range c.Schedulers() {
		if !p.Exited() {
			running++
		}
	}
	for ; running < 2; running++ {
		if _, err := c.StartScheduler(e.ctx); err != nil {
			t.Fatal(err)
		}
	}
	holder0, err := waitLeader(e.ctx, c, "")
	if err != nil {
		t.Fatal(err)
	}
	leader := waitLeaderProcess(t, c)
	t.Logf("leader: %s (pid %d), lease holder %s", leader.Name, leader.Pid(), holder0)

	// Watch every pod of the namespace: each must go from no node to one
	// node, and never change.
	var (
		mu       sync.Mutex
		nodesOf  = map[string][]string{}
		bound    atomic.Int64
		firstAny = make(chan struct{})
		once     sync.Once
	)
	record := func(obj any) {
		p, ok := obj.(*v1.Pod)
		if !ok || p.Spec.NodeName == "" {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		seen := nodesOf[p.Name]
		if len(seen) > 0 && seen[len(seen)-1] == p.Spec.NodeName {
			return
		}
		nodesOf[p.Name] = append(seen, p.Spec.NodeName)
		if len(seen) == 0 {
			bound.Add(1)
			once.Do(func() { close(firstAny) })
		}
	}
	factory := informers.NewSharedInformerFactoryWithOptions(e.client, 0, informers.WithNamespace(ns))
	podInformer := factory.Core().V1().Pods().Informer()
	_, _ = podInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    record,
		UpdateFunc: func(_, obj any) { record(obj) },
	})
	factory.Start(e.ctx.Done())
	factory.WaitForCacheSync(e.ctx.Done())

	// 600 pods that fit no node yet.
	names := make([]string, 0, 2*failoverPods)
	pods := make([]*v1.Pod, 0, 2*failoverPods)
	for i := range failoverPods {
		pods = append(pods, newPod(fmt.Sprintf("wa-%03d", i), windowsAware, "mcr.microsoft.com/windows/nanoserver:ltsc2022"))
		ds := newPod(fmt.Sprintf("ds-%03d", i), defaultScheduler, "nginx:1.27")
		ds.Spec.NodeSelector = map[string]string{failoverPool: "failover"}
		pods = append(pods, ds)
	}
	var createErrs atomic.Int64
	parallel(len(pods), 16, func(i int) {
		if _, err := e.client.CoreV1().Pods(ns).Create(e.ctx, pods[i], metav1.CreateOptions{}); err != nil {
			createErrs.Add(1)
			t.Errorf("creating %s: %v", pods[i].Name, err)
		}
	})
	if createErrs.Load() > 0 {
		t.FailNow()
	}
	for _, p := range pods {
		names = append(names, p.Name)
	}
	if n := bound.Load(); n != 0 {
		t.Fatalf("%d pods bound before any node fits them", n)
	}
	t.Logf("%d pods pending", len(pods))

	// Nodes for them, then kill the leader as soon as it binds.
	var nodes []*v1.Node
	for i := range 6 {
		nodes = append(nodes, windowsNode(fmt.Sprintf("failover-2022-%d", i), oracle.Build2022, fixture.WindowsTaint))
		nodes = append(nodes, fixture.Node(fmt.Sprintf("failover-linux-%d", i), fixture.NodeOptions{OS: "linux", Labels: map[string]string{failoverPool: "failover"}}))
	}
	e.createNodes(nodes...)
	select {
	case <-firstAny:
	case <-time.After(scheduleTimeout):
		t.Fatalf("the leader bound no pod in %s", scheduleTimeout)
	}
	killedOnPurpose.Store(leader.Pid(), true)
	if err := leader.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	<-leader.Done()
	boundAtKill := bound.Load()
	var lastRenew *metav1.MicroTime
	if lease, err := getSchedulerLease(e.ctx, e.client); err == nil {
		lastRenew = lease.Spec.RenewTime
	}
	t.Logf("killed %s (pid %d) with SIGKILL; %d of %d pods bound, %d pending", leader.Name, leader.Pid(), boundAtKill, len(pods), int64(len(pods))-boundAtKill)
	if boundAtKill >= int64(len(pods)) {
		t.Fatalf("every pod was bound before the leader was killed: nothing was pending")
	}

	holder1, err := waitLeader(e.ctx, c, holder0)
	if err != nil {
		t.Fatal(err)
	}
	takeover := time.Since(killed)
	t.Logf("lease kube-system/kube-scheduler: %s -> %s in %s after the kill (limit %s)", holder0, holder1, takeover.Round(time.Millisecond), takeoverLimit)
	if lease, err := getSchedulerLease(e.ctx, e.client); err == nil && lease.Spec.AcquireTime != nil && lastRenew != nil {
		t.Logf("lease acquired %s after the dead leader's last renewal (lease duration %s)", lease.Spec.AcquireTime.Sub(lastRenew.Time).Round(time.Millisecond), leaseDuration)
	}
	if takeover > takeoverLimit {
		t.Errorf("the survivor took the lease %s after the kill, want within %s (lease duration %s + retry period)", takeover, takeoverLimit, leaseDuration)
	}

	deadline := time.Now().Add(2 * time.Minute)
	for bound.Load() < int64(len(pods)) && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("all bound %s after the kill", time.Since(killed).Round(time.Millisecond))

	// Check against the API: every pod bound, once, where its profile
	// puts it.
	list, err := e.client.CoreV1().Pods(ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nodeOS := map[string]string{}
	for _, n := range nodes {
		nodeOS[n.Name] = n.Labels[v1.LabelOSStable]
	}
	unbound := 0
	for _, p := range list.Items {
		switch {
		case p.Spec.NodeName == "":
			unbound++
		case strings.HasPrefix(p.Name, "wa-") && nodeOS[p.Spec.NodeName] != "windows",
			strings.HasPrefix(p.Name, "ds-") && nodeOS[p.Spec.NodeName] != "linux":
			t.Errorf("pod %s on %s (%s)", p.Name, p.Spec.NodeName, nodeOS[p.Spec.NodeName])
		}
	}
	if len(list.Items) != len(names) || unbound > 0 {
		t.Errorf("%d pods listed (want %d), %d of them unbound", len(list.Items), len(names), unbound)
	}
	mu.Lock()
	for _, name := range names {
		if seen := nodesOf[name]; len(seen) != 1 {
			t.Errorf("pod %s went through nodes %v, want exactly one", name, seen)
		}
	}
	mu.Unlock()

	// At most one Scheduled event per pod (the killed leader may have lost
	// some of its unsent events) and no binding rejected as a conflict.
	evs, err := e.client.CoreV1().Events(ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	scheduled := map[string]int{}
	for _, ev := range evs.Items {
		switch {
		case ev.Reason == "Scheduled":
			scheduled[ev.InvolvedObject.Name]++
		case ev.Reason == "FailedScheduling" && (strings.Contains(ev.Message, "already assigned") || strings.Contains(ev.Message, "binding rejected")):
			t.Errorf("binding conflict for %s: %s", ev.InvolvedObject.Name, ev.Message)
		}
	}
	for name, n := range scheduled {
		if n > 1 {
			t.Errorf("pod %s has %d Scheduled events", name, n)
		}
	}
	survivor := waitLeaderProcess(t, c)
	t.Logf("survivor %s (pid %d) leads; %d Scheduled events for %d pods", survivor.Name, survivor.Pid(), len(scheduled), len(names))
	e.schedulersAlive()

	// Leave two schedulers for whatever runs next.
	if _, err := c.StartScheduler(e.ctx); err != nil {
		t.Fatal(err)
	}
}

// waitLeaderProcess waits for a running scheduler to log that it leads.
func waitLeaderProcess(t *testing.T, c *controlplane.Cluster) *localproc.Process {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		p, err := c.SchedulerLeader()
		if err == nil {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("finding the leading scheduler process: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
