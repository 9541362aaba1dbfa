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
	"context"
	"fmt"
	"sync"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/pkg/nodeclasses"
)

// classedPlugin is a WindowsAware whose class table has been told of nodes
// through its informer handler, as the scheduler's node informer would.
func classedPlugin(t *testing.T, nodes ...*v1.Node) (*WindowsAware, cache.ResourceEventHandler) {
	t.Helper()
	pl, err := newWindowsAware(defaultArgs())
	if err != nil {
		t.Fatal(err)
	}
	h := pl.classes.Handler()
	for _, n := range nodes {
		h.OnAdd(n, true)
	}
	return pl, h
}

// passes runs PreFilter for pod, then Filter on node, as one cycle.
func passes(t *testing.T, pl *WindowsAware, pod *v1.Pod, node *v1.Node) bool {
	t.Helper()
	state := newState()
	if _, s := pl.PreFilter(context.Background(), state, pod, []fwk.NodeInfo{nodeInfo(node)}); !s.IsSuccess() {
		t.Fatalf("PreFilter: %v", s)
	}
	return pl.Filter(context.Background(), state, pod, nodeInfo(node)).IsSuccess()
}

// TestClassTableNeverJudgesByOldFacts: whatever the table has or has not
// been told yet, a node is judged by the facts of the object the snapshot
// holds.
func TestClassTableNeverJudgesByOldFacts(t *testing.T) {
	// nodeEvent is an informer's add (old nil), update, or delete (new nil).
	type nodeEvent struct{ old, new *v1.Node }
	var (
		w2019     = fixture.WindowsNode("w", "10.0.17763")
		w2022     = fixture.WindowsNode("w", "10.0.20348")
		wBanana   = fixture.WindowsNode("w", "banana", fixture.WithKernel(""))
		wLinux    = fixture.LinuxNode("w")
		readded22 = fixture.WindowsNode("w", "10.0.20348")
	)
	tests := []struct {
		name string
		// told are the node events the table receives, in order.
		told []nodeEvent
		// snapshot is the object the scheduler's snapshot holds.
		snapshot *v1.Node
		want     bool
	}{
		{name: "label flipped between cycles, table told", told: []nodeEvent{{new: w2019}, {old: w2019, new: w2022}}, snapshot: w2022, want: false},
		{name: "label flipped, table not told yet", told: []nodeEvent{{new: w2019}}, snapshot: w2022, want: false},
		{name: "label fixed, table not told yet", told: []nodeEvent{{new: wBanana}}, snapshot: w2019, want: true},
		{name: "label broken, table not told yet", told: []nodeEvent{{new: w2019}}, snapshot: wBanana, want: false},
		{name: "deleted and re-added under the same name as another build", told: []nodeEvent{{new: w2019}, {old: w2019}, {new: readded22}}, snapshot: readded22, want: false},
		{name: "deleted, re-added as another build, table told of the delete only", told: []nodeEvent{{new: w2019}, {old: w2019}}, snapshot: readded22, want: false},
		{name: "deleted and re-added as the pod's build", told: []nodeEvent{{new: w2022}, {old: w2022}, {new: w2019}}, snapshot: w2019, want: true},
		{name: "turned into a linux node", told: []nodeEvent{{new: w2019}}, snapshot: wLinux, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl, h := classedPlugin(t)
			for _, ch := range tt.told {
				switch {
				case ch.old == nil:
					h.OnAdd(ch.new, false)
				case ch.new == nil:
					h.OnDelete(ch.old)
				default:
					h.OnUpdate(ch.old, ch.new)
				}
			}
			if got := passes(t, pl, pod(img2019).Obj(), tt.snapshot); got != tt.want {
				t.Errorf("ltsc2019 pod passes = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestClassTableLookupIsUsed: a node the table holds is judged by its class,
// which the table worked out from the object once.
func TestClassTableLookupIsUsed(t *testing.T) {
	node := fixture.WindowsNode("w", "10.0.17763")
	pl, _ := classedPlugin(t, node)
	ltsc2019 := pod(img2019).Obj()
	if !passes(t, pl, ltsc2019, node) {
		t.Fatal("a 2019 node rejects an ltsc2019 pod")
	}
	// The table classified the object when it was told of it; only the
	// table can still call it a 2019 node after its labels are mutated in
	// place (which the scheduler never does).
	node.Labels[v1.LabelWindowsBuild] = "10.0.20348"
	if !passes(t, pl, ltsc2019, node) {
		t.Error("Filter read the labels of a node the class table holds")
	}
}

// TestClassTableRebuildsPastMaxClasses: many distinct classes do not grow
// the table without bound, and every node keeps its verdict.
func TestClassTableRebuildsPastMaxClasses(t *testing.T) {
	pl, h := classedPlugin(t)
	var nodes []*v1.Node
	for i := range nodeclasses.MaxClasses + 10 {
		n := fixture.WindowsNode(fmt.Sprintf("w%d", i), "10.0.17763", fixture.WithKernel(fmt.Sprintf("10.0.17763.%d", i)))
		nodes = append(nodes, n)
		h.OnAdd(n, false)
	}
	pl.classes.Current()
	for _, n := range nodes[:nodeclasses.MaxClasses] {
		h.OnDelete(n)
	}
	table := pl.classes.Current()
	if got := table.Len(); got > nodeclasses.MaxClasses {
		t.Fatalf("table keeps %d classes", got)
	}
	for _, n := range nodes[nodeclasses.MaxClasses:] {
		if _, ok := table.Class(n); !ok {
			t.Errorf("node %s lost from the table", n.Name)
		}
		if !passes(t, pl, pod(img2019).Obj(), n) {
			t.Errorf("node %s rejects an ltsc2019 pod", n.Name)
		}
	}
}

// TestFilterConcurrentWithNodeEvents runs Filter on many goroutines while
// node events arrive and PreFilter publishes new tables; run with -race.
func TestFilterConcurrentWithNodeEvents(t *testing.T) {
	var nodes []*v1.Node
	for i := range 200 {
		if i%2 == 0 {
			nodes = append(nodes, fixture.LinuxNode(fmt.Sprintf("l%d", i)))
		} else {
			nodes = append(nodes, fixture.WindowsNode(fmt.Sprintf("w%d", i), "10.0.17763"))
		}
	}
	pl, h := classedPlugin(t, nodes...)
	p := pod(img2019).Obj()
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() { // the informer
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			old := nodes[1+2*(i%100)]
			h.OnUpdate(old, fixture.WindowsNode(old.Name, "10.0.20348"))
			h.OnUpdate(old, old)
		}
	}()
	for range 20 { // scheduling cycles
		state := newState()
		if _, s := pl.PreFilter(context.Background(), state, p, nil); !s.IsSuccess() {
			t.Fatal(s)
		}
		var filters sync.WaitGroup
		for g := range 8 {
			filters.Add(1)
			go func() {
				defer filters.Done()
				for i := g; i < len(nodes); i += 8 {
					got := pl.Filter(context.Background(), state, p, nodeInfo(nodes[i])).IsSuccess()
					if want := i%2 == 1; got != want {
						t.Errorf("node %s: passes = %v, want %v", nodes[i].Name, got, want)
					}
				}
			}()
		}
		filters.Wait()
	}
	close(stop)
	wg.Wait()
}

// TestWithoutPreFilter: a profile that enables WindowsAware at filter and
// score alone gets the same verdicts, as upstream NodeAffinity does.
func TestWithoutPreFilter(t *testing.T) {
	pl, _ := newWindowsAware(defaultArgs())
	tests := []struct {
		name      string
		pod       *v1.Pod
		node      *v1.Node
		wantPass  bool
		wantScore int64
	}{
		{name: "linux pod on a windows node", pod: pod(imgLinux).Obj(), node: fixture.WindowsNode("w", "10.0.17763"), wantPass: false},
		{name: "linux pod on a linux node", pod: pod(imgLinux).Obj(), node: fixture.LinuxNode("l"), wantPass: true, wantScore: stayingNode},
		{name: "linux pod on a retiring linux node", pod: pod(imgLinux).Obj(), node: retiring(fixture.LinuxNode("l")), wantPass: true, wantScore: 0},
		{name: "ltsc2022 pod on a 2025 node", pod: pod(img2022).Obj(), node: fixture.WindowsNode("w", "10.0.26100"), wantPass: true, wantScore: stayingNode},
		{name: "ltsc2022 pod on a 2022 node", pod: pod(img2022).Obj(), node: fixture.WindowsNode("w", "10.0.20348"), wantPass: true, wantScore: stayingNode + exactBuild},
		{name: "ltsc2022 pod on a retiring 2022 node", pod: pod(img2022).Obj(), node: retiring(fixture.WindowsNode("w", "10.0.20348")), wantPass: true, wantScore: exactBuild},
		{name: "ltsc2022 pod on a 2019 node", pod: pod(img2022).Obj(), node: fixture.WindowsNode("w", "10.0.17763"), wantPass: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state := newState()
			if got := pl.Filter(context.Background(), state, tt.pod, nodeInfo(tt.node)).IsSuccess(); got != tt.wantPass {
				t.Errorf("Filter passes = %v, want %v", got, tt.wantPass)
			}
			if !tt.wantPass {
				return
			}
			score, s := pl.Score(context.Background(), state, tt.pod, nodeInfo(tt.node))
			if !s.IsSuccess() || score != tt.wantScore {
				t.Errorf("Score = %d, %v; want %d", score, s, tt.wantScore)
			}
		})
	}
}
