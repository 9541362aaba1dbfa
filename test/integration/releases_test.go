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

	"github.com/windows-aware/windows-aware/internal/controlplane"
)

// release is one row of the tag table in windows-facts.md, with an image
// spelled as real registries spell that release.
type release struct {
	token, build, image string
}

var releases = []release{
	{"ltsc2016", "10.0.14393", "mcr.microsoft.com/windows/servercore:ltsc2016"},
	{"1607", "10.0.14393", "mcr.microsoft.com/windows/nanoserver:1607"},
	{"sac2016", "10.0.14393", "microsoft/nanoserver:sac2016"},
	{"1709", "10.0.16299", "microsoft/aspnet:4.7.1-windowsservercore-1709"},
	{"1803", "10.0.17134", "mcr.microsoft.com/windows/servercore:1803"},
	{"1809", "10.0.17763", "mcr.microsoft.com/dotnet/aspnet:8.0-nanoserver-1809"},
	{"ltsc2019", "10.0.17763", "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019"},
	{"1903", "10.0.18362", "mcr.microsoft.com/windows/servercore:1903"},
	{"1909", "10.0.18363", "mcr.microsoft.com/windows/nanoserver:1909"},
	{"2004", "10.0.19041", "mcr.microsoft.com/windows/servercore:2004-amd64"},
	{"20H2", "10.0.19042", "mcr.microsoft.com/windows/servercore:20H2"},
	{"ltsc2022", "10.0.20348", "mcr.microsoft.com/powershell:lts-nanoserver-ltsc2022"},
	{"ltsc2025", "10.0.26100", "mcr.microsoft.com/dotnet/framework/aspnet:4.8.1-20260714-windowsservercore-ltsc2025"},
}

// hostBuilds are the node builds of the release test: every release's,
// and Windows Server 23H2 (25398), a host with no images of its own.
var hostBuilds = []string{
	"10.0.14393", "10.0.16299", "10.0.17134", "10.0.17763", "10.0.18362",
	"10.0.18363", "10.0.19041", "10.0.19042", "10.0.20348", "10.0.25398", "10.0.26100",
}

// runs is the process-isolation rule of containerd and hcsshim, as
// windows-facts.md states it, written out independently of package
// windows: below 20348 the builds are equal; from 20348 the image lies
// between the newest LTSC strictly below the host (20348 if none) and the
// host.
func runs(hostBuild, imageBuild string) bool {
	h, i := buildNumber(hostBuild), buildNumber(imageBuild)
	if h < 20348 {
		return h == i
	}
	floor := 20348
	if h > 26100 {
		floor = 26100
	}
	return floor <= i && i <= h
}

func buildNumber(b string) int {
	var major, minor, n int
	fmt.Sscanf(b, "%d.%d.%d", &major, &minor, &n)
	return n
}

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
	for _, b := range hostBuilds {
		nodes = append(nodes, windowsNode(hostName(b), b, controlplane.OSTaint))
	}
	e.createNodes(nodes...)

	t.Run("exact build preferred", func(t *testing.T) {
		var names []string
		for _, r := range releases {
			name := "exact-" + strings.ToLower(r.token)
			e.createPod(ns, newPod(name, windowsAware, r.image))
			names = append(names, name)
		}
		got := e.waitAllScheduled(ns, names, 2*scheduleTimeout)
		for i, r := range releases {
			node := got[names[i]]
			if osOf(node) != "windows" || !runs(buildOf(node), r.build) {
				t.Errorf("%s (%s) landed on %s (%s %s), whose build does not run %s", r.token, r.image, node.Name, osOf(node), buildOf(node), r.build)
			}
			if buildOf(node) != r.build {
				t.Errorf("%s (%s) landed on %s (build %s), want the exact build %s", r.token, r.image, node.Name, buildOf(node), r.build)
			}
		}
	})

	for _, r := range releases {
		t.Run("exact build excluded/"+r.token, func(t *testing.T) {
			exclude := v1.Taint{Key: "windows-aware.test/excluded", Value: "true", Effect: v1.TaintEffectNoSchedule}
			e.patchTaints(hostName(r.build), append([]v1.Taint{controlplane.OSTaint}, exclude))
			defer e.patchTaints(hostName(r.build), []v1.Taint{controlplane.OSTaint})

			name := "excluded-" + strings.ToLower(r.token)
			e.createPod(ns, newPod(name, windowsAware, r.image))
			var others []string
			for _, b := range hostBuilds {
				if b != r.build && runs(b, r.build) {
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
					t.Errorf("%s: FailedScheduling message %q gives no WindowsAware reason", r.token, msg)
				}
				e.deletePod(ns, name)
				return
			}
			node := e.waitScheduled(ns, name, scheduleTimeout)
			if osOf(node) != "windows" || !runs(buildOf(node), r.build) {
				t.Errorf("%s landed on %s (%s %s), which does not run build %s (want one of %v)", r.token, node.Name, osOf(node), buildOf(node), r.build, others)
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
		return controlplane.NewNode(name, controlplane.NodeOptions{OS: "windows", Build: build, Taints: []v1.Taint{controlplane.OSTaint}, Pods: 4})
	}
	e.createNodes(small("pref-2019", controlplane.Build2019), small("pref-2022", controlplane.Build2022), small("pref-2025-a", controlplane.Build2025), small("pref-2025-b", controlplane.Build2025))

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
		if buildOf(node) != controlplane.Build2025 {
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
		return controlplane.NewNode(name, controlplane.NodeOptions{OS: "windows", Build: controlplane.Build2019, KernelVersion: kernel})
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
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	e.t.Fatalf("could not update the taints of %s", node)
}

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
