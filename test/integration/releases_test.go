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
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/oracle"
)

func hostName(build string) string { return "rel-" + strings.ReplaceAll(build, ".", "-") }

// TestReleasesLandOnCompatibleBuilds: a windows-aware pod of every release
// in the facts table, without selector or toleration, lands on the node of
// its exact build among nodes of every build (all tainted
// os=windows:NoSchedule as the guide recommends); with that node excluded
// it lands on another node whose build runs it, or, where none does, stays
// Pending with the build reason.
func TestReleasesLandOnCompatibleBuilds(t *testing.T) {
	e := requireCluster(t)
	ns := e.namespace()
	nodes := []*v1.Node{linuxNode("rel-linux")}
	for _, b := range oracle.HostBuilds {
		nodes = append(nodes, windowsNode(hostName(b), b, fixture.WindowsTaint))
	}
	e.createNodes(nodes...)

	t.Run("exact build preferred", func(t *testing.T) {
		var names []string
		for _, r := range oracle.Releases {
			name := "exact-" + strings.ToLower(r.Token)
			e.createPod(ns, newPod(name, windowsAware, r.Image))
			names = append(names, name)
		}
		got := e.waitAllScheduled(ns, names, 2*scheduleTimeout)
		for i, r := range oracle.Releases {
			node := got[names[i]]
			if osOf(node) != "windows" || !oracle.Runs(buildOf(node), r.Build) {
				t.Errorf("%s (%s) landed on %s (%s %s), whose build does not run %s", r.Token, r.Image, node.Name, osOf(node), buildOf(node), r.Build)
			}
			if buildOf(node) != r.Build {
				t.Errorf("%s (%s) landed on %s (build %s), want the exact build %s", r.Token, r.Image, node.Name, buildOf(node), r.Build)
			}
		}
	})

	for _, r := range oracle.Releases {
		t.Run("exact build excluded/"+r.Token, func(t *testing.T) {
			exclude := v1.Taint{Key: "windows-aware.test/excluded", Value: "true", Effect: v1.TaintEffectNoSchedule}
			e.patchTaints(hostName(r.Build), append([]v1.Taint{fixture.WindowsTaint}, exclude))
			defer e.patchTaints(hostName(r.Build), []v1.Taint{fixture.WindowsTaint})

			name := "excluded-" + strings.ToLower(r.Token)
			e.createPod(ns, newPod(name, windowsAware, r.Image))
			var others []string
			for _, b := range oracle.HostBuilds {
				if b != r.Build && oracle.Runs(b, r.Build) {
					others = append(others, b)
				}
			}
			if len(others) == 0 {
				// The reason is WindowsAware's: its build reason, or, when
				// its PreFilter narrowed the pod to the one (excluded) node
				// of its build, the scheduler's wording for the nodes left
				// out.
				msg := e.failedScheduling(ns, name, scheduleTimeout)
				if !strings.Contains(msg, "node(s) had an incompatible Windows build") && !strings.Contains(msg, "didn't satisfy plugin(s) [WindowsAware]") {
					t.Errorf("%s: FailedScheduling message %q gives no WindowsAware reason", r.Token, msg)
				}
				e.deletePod(ns, name)
				return
			}
			node := e.waitScheduled(ns, name, scheduleTimeout)
			if osOf(node) != "windows" || !oracle.Runs(buildOf(node), r.Build) {
				t.Errorf("%s landed on %s (%s %s), which does not run build %s (want one of %v)", r.Token, node.Name, osOf(node), buildOf(node), r.Build, others)
			}
		})
	}
	e.schedulersAlive()
}

// TestLTSC2022PrefersExactBuildOver2025: a 2025 host also runs ltsc2022
// images, but with 2022 and 2025 nodes free every ltsc2022 pod goes to
// 2022; with the 2022 nodes full they go to 2025, never to 2019.
func TestLTSC2022PrefersExactBuildOver2025(t *testing.T) {
	e := requireCluster(t)
	ns := e.namespace()
	small := func(name, build string) *v1.Node {
		return fixture.Node(name, fixture.NodeOptions{OS: "windows", Build: build, Taints: []v1.Taint{fixture.WindowsTaint}, Pods: 4})
	}
	e.createNodes(small("pref-2019", oracle.Build2019), small("pref-2022", oracle.Build2022), small("pref-2025-a", oracle.Build2025), small("pref-2025-b", oracle.Build2025))

	var first []string
	for i := range 4 {
		name := fmt.Sprintf("ltsc2022-%d", i)
		e.createPod(ns, newPod(name, windowsAware, "mcr.microsoft.com/windows/nanoserver:ltsc2022"))
		first = append(first, name)
	}
	for name, node := range e.waitAllScheduled(ns, first, scheduleTimeout) {
		if node.Name != "pref-2022" {
			t.Errorf("%s landed on %s (build %s), want the free 2022 node", name, node.Name, buildOf(node))
		}
	}
	// The 2022 node is full (4 pods): the next ones may only go to 2025.
	var next []string
	for i := 4; i < 7; i++ {
		name := fmt.Sprintf("ltsc2022-%d", i)
		e.createPod(ns, newPod(name, windowsAware, "mcr.microsoft.com/windows/nanoserver:ltsc2022"))
		next = append(next, name)
	}
	for name, node := range e.waitAllScheduled(ns, next, scheduleTimeout) {
		if buildOf(node) != oracle.Build2025 {
			t.Errorf("%s landed on %s (build %s), want a 2025 node once 2022 is full", name, node.Name, buildOf(node))
		}
	}
}

// TestExactRevisionPreferred: among nodes of the same build, a
// 10.0.<build>.<revision> tag prefers the node whose kernel revision is
// closest.
func TestExactRevisionPreferred(t *testing.T) {
	e := requireCluster(t)
	ns := e.namespace()
	rev := func(name, kernel string) *v1.Node {
		return fixture.Node(name, fixture.NodeOptions{OS: "windows", Build: oracle.Build2019, KernelVersion: kernel})
	}
	e.createNodes(rev("rev-old", "10.0.17763.1000"), rev("rev-match", "10.0.17763.4131"), rev("rev-new", "10.0.17763.7000"))
	e.createPod(ns, newPod("rev", windowsAware, "mcr.microsoft.com/windows/servercore:10.0.17763.4131"))
	if node := e.waitScheduled(ns, "rev", scheduleTimeout); node.Name != "rev-match" {
		t.Errorf("10.0.17763.4131 image landed on %s (kernel %s), want rev-match (10.0.17763.4131)", node.Name, node.Status.NodeInfo.KernelVersion)
	}
}

func (e *env) patchTaints(node string, taints []v1.Taint) {
	e.t.Helper()
	for range 10 {
		n := e.getNode(node)
		n.Spec.Taints = taints
		_, err := e.client.CoreV1().Nodes().Update(e.ctx, n, metav1.UpdateOptions{})
		if err == nil {
			// A scheduler decides from its informer's view: a pod created
			// the instant after the update may still be placed by the old
			// taints, in a real cluster as here. Give the schedulers' node
			// informers time to see it, generously on a loaded machine.
			time.Sleep(taintSettle)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	e.t.Fatalf("could not update the taints of %s", node)
}

// taintSettle is how long a test waits for the schedulers to see a taint
// change before it creates the pods the change is meant to affect.
const taintSettle = 2 * time.Second

func (e *env) patchLabel(node, key, value string) {
	e.t.Helper()
	patch := fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, key, value)
	if _, err := e.client.CoreV1().Nodes().Patch(e.ctx, node, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		e.t.Fatalf("labelling %s: %v", node, err)
	}
}

func (e *env) deletePod(ns, name string) {
	e.t.Helper()
	zero := int64(0)
	if err := e.client.CoreV1().Pods(ns).Delete(e.ctx, name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		e.t.Fatalf("deleting pod %s: %v", name, err)
	}
}
