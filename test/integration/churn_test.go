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
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/oracle"
)

const (
	churnPodsPerKind = 475 // ×4 kinds, plus the HostProcess and impossible pods: 2,000
	churnHostProcess = 60
	churnImpossible  = 20 // of each impossible kind
	churnStartNodes  = 5  // per node kind
	churnMinNodes    = 8
	churnInterval    = 50 * time.Millisecond
	churnMaxDuration = time.Minute
	// decisionSlack is how far the scheduler's view of a node may lag, or
	// lead, the test's own watch at a decision: generous for two watches
	// of one API server and a process stalled on a loaded machine.
	decisionSlack = 3 * time.Second
	// maintenanceTaint is a taint no test pod tolerates.
	maintenanceKey = "windows-aware.test/maintenance"
)

var (
	kindHostProcess = podKind{"hostprocess", "mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image:v1.0.0", need{"windows", ""}}
	// kindLTSC2016 needs a build no node of the test ever has.
	kindLTSC2016 = podKind{"ltsc2016", "mcr.microsoft.com/windows/servercore:ltsc2016", need{"windows", oracle.Build2016}}
)

// TestChurn: while 2,000 windows-aware pods schedule, nodes are added,
// deleted, relabelled (windows-build label set to another build, to a
// malformed value or removed, kernel version changed) and re-tainted (a
// taint no pod tolerates, the OS taint in its spellings, cordoning) about
// twenty times a second. The scheduler does not panic; no pod lands on a
// node that could not run it; and once the churn stops and a node of each
// kind joins, every pod is bound, except those no node ever runs, which
// wait with a reason.
//
// "Could not run it" is judged against the node's history (see history)
// at two moments. At the binding, by etcd revision; but kube-scheduler
// binds what it decided without checking the node again, and its
// bindings wait their turn behind its client's rate limit (50 requests a
// second shipped), so a change committed between a decision and its
// binding is not the scheduler's error: such bindings are counted as
// overtaken and reported. At the decision, taken from the scheduler's
// -v=3 log (the start of the pod's last scheduling cycle): a pod fails the
// test when no version of its node that could run it was current within
// decisionSlack of that moment.
func TestChurn(t *testing.T) {
	began := time.Now()
	// -v=3 logs the start of every scheduling cycle: when each decision
	// was taken.
	e := ownCluster(t, "-v=3")
	ns := e.plainNamespace("churn")
	h := e.watchHistory(ns)
	scheduler := waitLeaderProcess(t, e.c)
	seed := uint64(time.Now().UnixNano())
	t.Logf("churn seed %d", seed)
	ch := &churner{e: e, rnd: rand.New(rand.NewPCG(seed, 0x5eed)), os: map[string]string{}, ops: map[string]int{}}

	nodeKinds := []podKind{kindLinux, kindLTSC2019, kindLTSC2022, kindLTSC2025}
	for _, k := range nodeKinds {
		for range churnStartNodes {
			ch.add(k)
		}
	}

	needs := map[string]need{}
	var pods, schedulable, impossible []*v1.Pod
	addPods := func(kind podKind, n int, mutate func(*v1.Pod) *v1.Pod, images ...string) []*v1.Pod {
		var out []*v1.Pod
		for i := range n {
			p := mutate(newPod(fmt.Sprintf("%s-%03d", kind.name, i), windowsAware, append([]string{kind.image}, images...)...))
			needs[p.Name] = kind.need
			out = append(out, p)
		}
		pods = append(pods, out...)
		return out
	}
	same := func(p *v1.Pod) *v1.Pod { return p }
	for _, k := range nodeKinds {
		schedulable = append(schedulable, addPods(k, churnPodsPerKind, same)...)
	}
	schedulable = append(schedulable, addPods(kindHostProcess, churnHostProcess, hostProcess)...)
	impossible = append(impossible, addPods(kindLTSC2016, churnImpossible, same)...)
	conflict := podKind{"ltsc2019-with-ltsc2022", kindLTSC2019.image, need{"windows", "none"}}
	impossible = append(impossible, addPods(conflict, churnImpossible, same, kindLTSC2022.image)...)
	e.createPodsParallel(ns, pods)
	t.Logf("%d pods created (%d schedulable, %d that no node runs) in %s; %d bound so far; churning",
		len(pods), len(schedulable), len(impossible), time.Since(began).Round(100*time.Millisecond), h.boundCount())

	churnStart := time.Now()
	for time.Since(churnStart) < churnMaxDuration && h.boundCount() < len(schedulable) {
		ch.step()
		time.Sleep(churnInterval)
	}
	ops := make([]string, 0, len(ch.ops))
	for op, n := range ch.ops {
		ops = append(ops, fmt.Sprintf("%s %d", op, n))
	}
	sort.Strings(ops)
	boundInChurn := h.boundCount()
	t.Logf("churned for %s (%s); %d nodes live, %d of %d schedulable pods bound",
		time.Since(churnStart).Round(100*time.Millisecond), strings.Join(ops, ", "), len(ch.live), boundInChurn, len(schedulable))

	// Settle: a fresh node of each kind, with room for everything left.
	for _, k := range nodeKinds {
		e.addNodeRetrying(nodeFor("settle-"+k.name, k, 1000))
	}
	e.waitBound(ns, h, schedulable, 3*time.Minute)
	t.Logf("every schedulable pod bound %s after the churn stopped", time.Since(churnStart).Round(100*time.Millisecond))
	e.waitUnschedulable(ns, impossible, time.Minute)

	// Check.
	list, err := e.client.CoreV1().Pods(ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != len(pods) {
		t.Errorf("%d pods listed, want %d", len(list.Items), len(pods))
	}
	count, eventNodes, refused := e.scheduledEvents(ns)
	attempts, err := schedulingAttempts(scheduler, ns)
	if err != nil {
		t.Fatal(err)
	}
	isImpossible := map[string]bool{}
	for _, p := range impossible {
		isImpossible[p.Name] = true
	}
	var fitting, overtaken int
	var overtakenExamples []string
	var lags []time.Duration
	overtakenBy := map[string]int{}
	for _, p := range list.Items {
		nd := needs[p.Name]
		if isImpossible[p.Name] {
			c := podCondition(&p, v1.PodScheduled)
			want := "node(s) had an incompatible Windows build"
			if nd.build == "none" {
				want = oracle.Build2019 // the conflict names both builds
			}
			switch {
			case p.Spec.NodeName != "":
				t.Errorf("pod %s, which no node runs, was bound to %s", p.Name, p.Spec.NodeName)
			case c == nil || c.Reason != v1.PodReasonUnschedulable || !strings.Contains(c.Message, want) ||
				(nd.build == "none" && !strings.Contains(c.Message, oracle.Build2022)):
				t.Errorf("pod %s waits without the reason (want %q): %+v", p.Name, want, c)
			}
			continue
		}
		track := h.pod(p.Name)
		if p.Spec.NodeName == "" || len(track.nodes) != 1 || track.nodes[0] != p.Spec.NodeName || len(track.uids) != 1 {
			t.Errorf("pod %s: the API says node %q, the watch saw nodes %v and uids %v", p.Name, p.Spec.NodeName, track.nodes, track.uids)
			continue
		}
		decided := lastBefore(attempts[p.Name], track.boundSeen)
		if decided.IsZero() {
			t.Errorf("pod %s: no scheduling cycle for it in the scheduler's log before its binding", p.Name)
			continue
		}
		lags = append(lags, track.boundSeen.Sub(decided))
		switch got, why := h.judgeBinding(track, nd, decided, decisionSlack); got {
		case placedFitting:
			fitting++
		case placedOvertaken:
			overtaken++
			overtakenBy[strings.Fields(why)[0]]++
			if len(overtakenExamples) < 3 {
				overtakenExamples = append(overtakenExamples, fmt.Sprintf("%s (%s) on %s: %s", p.Name, nd, p.Spec.NodeName, why))
			}
		case placedWrong:
			t.Errorf("pod %s (%s) was bound to %s at revision %d (decided at %s), and the node could not run it then, nor within %s of the decision: %s; node history: %s",
				p.Name, nd, p.Spec.NodeName, track.boundRV, decided.Format("15:04:05.000"), decisionSlack, why, h.describeVersions(p.Spec.NodeName, nd))
		}
		if count[p.Name] > 1 || slices.ContainsFunc(eventNodes[p.Name], func(n string) bool { return n != p.Spec.NodeName }) {
			t.Errorf("pod %s on %s: %d Scheduled events naming %v", p.Name, p.Spec.NodeName, count[p.Name], eventNodes[p.Name])
		}
	}
	t.Logf("%d bindings found their node fitting at the binding revision; %d overtaken by a node change committed after the decision; %d refused as already done",
		fitting, overtaken, len(refused))
	slices.Sort(lags)
	if len(lags) > 0 {
		t.Logf("decision to binding seen: median %s, 90th percentile %s, max %s; overtaken by what the node became: %v",
			lags[len(lags)/2].Round(time.Millisecond), lags[len(lags)*9/10].Round(time.Millisecond), lags[len(lags)-1].Round(time.Millisecond), overtakenBy)
	}
	for _, ex := range overtakenExamples {
		t.Logf("  overtaken: %s", ex)
	}
	for _, p := range h.problemsSeen() {
		t.Errorf("history: %s", p)
	}
	for _, line := range schedulerLogProblems(scheduler) {
		t.Errorf("scheduler log: %s", line)
	}
	e.schedulersAlive()
	t.Logf("test took %s", time.Since(began).Round(100*time.Millisecond))
}

// lastBefore returns the latest of times before limit (zero if none).
func lastBefore(times []time.Time, limit time.Time) time.Time {
	var last time.Time
	for _, at := range times {
		if at.Before(limit) && at.After(last) {
			last = at
		}
	}
	return last
}

// churner changes the test's nodes at random, one write at a time.
type churner struct {
	e    *env
	rnd  *rand.Rand
	live []string // nodes it created and has not deleted
	os   map[string]string
	seq  int
	ops  map[string]int
}

var churnBuilds = []string{oracle.Build2019, oracle.Build2022, oracle.Build2025}

// osTaintSpellings are OS taints the shipped configuration tolerates.
var osTaintSpellings = []v1.Taint{
	fixture.WindowsTaint,
	{Key: "os", Value: "Windows", Effect: v1.TaintEffectNoSchedule},
	{Key: "node.kubernetes.io/os", Value: "windows", Effect: v1.TaintEffectNoSchedule},
}

func (c *churner) add(kind podKind) {
	c.seq++
	name := fmt.Sprintf("churn-%04d", c.seq)
	n := nodeFor(name, kind, 0)
	if kind.need.os == "windows" {
		switch r := c.rnd.IntN(10); {
		case r < 3:
			n.Spec.Taints = []v1.Taint{osTaintSpellings[r]}
		case r == 3:
			n.Spec.Taints = nil
		}
	}
	c.e.addNodeRetrying(n)
	c.live = append(c.live, name)
	c.os[name] = kind.need.os
	c.ops["add"]++
}

// step makes one random change.
func (c *churner) step() {
	r := c.rnd.IntN(100)
	if r < 15 {
		c.add([]podKind{kindLinux, kindLTSC2019, kindLTSC2022, kindLTSC2025}[c.rnd.IntN(4)])
		return
	}
	i := c.rnd.IntN(len(c.live))
	name := c.live[i]
	if c.os[name] != "windows" && r >= 27 && r < 67 {
		r = 67 // builds and kernels are relabelled on Windows nodes only
	}
	var op string
	var status bool
	var change func(*v1.Node)
	switch {
	case r < 27:
		if len(c.live) <= churnMinNodes {
			return
		}
		if err := c.e.client.CoreV1().Nodes().Delete(c.e.ctx, name, metav1.DeleteOptions{}); err != nil {
			c.e.t.Errorf("deleting node %s: %v", name, err)
		}
		c.live = slices.Delete(c.live, i, i+1)
		c.ops["delete"]++
		return
	case r < 57:
		op = "relabel build"
		change = func(n *v1.Node) {
			switch x := c.rnd.IntN(100); {
			case x < 84:
				n.Labels[v1.LabelWindowsBuild] = churnBuilds[x%3]
			case x < 92:
				n.Labels[v1.LabelWindowsBuild] = "banana"
			default:
				delete(n.Labels, v1.LabelWindowsBuild)
			}
		}
	case r < 67:
		op, status = "kernel", true
		change = func(n *v1.Node) {
			n.Status.NodeInfo.KernelVersion = churnBuilds[c.rnd.IntN(3)] + ".1234"
		}
	case r < 85:
		op = "re-taint"
		change = func(n *v1.Node) {
			var kept []v1.Taint
			hadMaintenance := false
			for _, t := range n.Spec.Taints {
				if t.Key == maintenanceKey {
					hadMaintenance = true
					continue
				}
				if !osTaintKeys[t.Key] {
					kept = append(kept, t)
				}
			}
			if nodeOS(n) == "windows" {
				if x := c.rnd.IntN(4); x < 3 {
					kept = append(kept, osTaintSpellings[x])
				}
			}
			if !hadMaintenance && c.rnd.IntN(2) == 0 {
				kept = append(kept, v1.Taint{Key: maintenanceKey, Value: "true", Effect: v1.TaintEffectNoSchedule})
			}
			n.Spec.Taints = kept
		}
	default:
		op = "cordon/uncordon"
		change = func(n *v1.Node) { n.Spec.Unschedulable = !n.Spec.Unschedulable }
	}
	if err := c.e.updateNode(name, status, change); err != nil {
		c.e.t.Errorf("%s of node %s: %v", op, name, err)
	}
	c.ops[op]++
}
