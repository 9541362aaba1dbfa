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

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/oracle"
)

// TestLinuxPodsNeverLandOnWindowsNodes: Linux pods of the windows-aware
// profile (no OS field, OS field linux, a Linux image whose tag is a bare
// release number) stay on Linux nodes even with untainted Windows nodes
// free; once the Linux node is full they wait, saying why, rather than
// spill onto Windows.
func TestLinuxPodsNeverLandOnWindowsNodes(t *testing.T) {
	e := requireCluster(t)
	ns := e.namespace()
	e.createNodes(
		fixture.Node("lin-linux", fixture.NodeOptions{OS: "linux", Pods: 4}),
		windowsNode("lin-win-2019", oracle.Build2019),
		windowsNode("lin-win-2022", oracle.Build2022),
	)
	pods := []*v1.Pod{
		newPod("nginx", windowsAware, "nginx:1.27"),
		newPod("redis-2004", windowsAware, "redis:2004"), // a bare release number on a Linux image
		newPod("busybox", windowsAware, "busybox"),
	}
	withOS := newPod("os-linux", windowsAware, "registry.k8s.io/pause:3.10")
	withOS.Spec.OS = &v1.PodOS{Name: v1.Linux}
	pods = append(pods, withOS)
	var names []string
	for _, p := range pods {
		e.createPod(ns, p)
		names = append(names, p.Name)
	}
	for name, node := range e.waitAllScheduled(ns, names, scheduleTimeout) {
		if osOf(node) != "linux" {
			t.Errorf("Linux pod %s landed on %s (%s)", name, node.Name, osOf(node))
		}
	}
	// The Linux node holds 4 pods: a fifth waits, Windows nodes free or not.
	e.createPod(ns, newPod("overflow", windowsAware, "nginx:1.27"))
	msg := e.failedScheduling(ns, "overflow", scheduleTimeout)
	if !strings.Contains(msg, "node(s) didn't match Pod's OS") {
		t.Errorf("FailedScheduling message %q does not say the Windows nodes have the wrong OS", msg)
	}
}

// TestDefaultSchedulerKeepsStockBehaviour: the default-scheduler profile
// is upstream's: a Windows pod without selectors is scheduled wherever it
// fits, a Linux node included (the misplacement the windows-aware profile
// exists for), and a pod selecting Windows without a toleration does not
// tolerate os=windows:NoSchedule.
func TestDefaultSchedulerKeepsStockBehaviour(t *testing.T) {
	e := requireCluster(t)
	ns := e.namespace()
	e.createNodes(linuxNode("stock-linux"), windowsNode("stock-win-2019", oracle.Build2019, fixture.WindowsTaint))

	e.createPod(ns, newPod("stock", defaultScheduler, "mcr.microsoft.com/windows/servercore:ltsc2019"))
	node := e.waitScheduled(ns, "stock", scheduleTimeout)
	t.Logf("default-scheduler placed the ltsc2019 pod without selectors on %s (%s)", node.Name, osOf(node))

	aware := newPod("aware", windowsAware, "mcr.microsoft.com/windows/servercore:ltsc2019")
	e.createPod(ns, aware)
	if node := e.waitScheduled(ns, "aware", scheduleTimeout); node.Name != "stock-win-2019" {
		t.Errorf("the same pod under windows-aware landed on %s, want stock-win-2019", node.Name)
	}

	sel := newPod("selector-no-toleration", defaultScheduler, "mcr.microsoft.com/windows/servercore:ltsc2019")
	sel.Spec.NodeSelector = map[string]string{v1.LabelOSStable: "windows"}
	e.createPod(ns, sel)
	msg := e.failedScheduling(ns, sel.Name, scheduleTimeout)
	if !strings.Contains(msg, "untolerated taint") {
		t.Errorf("default-scheduler FailedScheduling message %q does not name the taint", msg)
	}
}

// TestOSTaints: Windows nodes tainted os=windows:NoSchedule or
// node.kubernetes.io/os=windows:NoSchedule take windows-aware Windows pods
// that carry no toleration; a node with one more, unrelated, taint does
// not.
func TestOSTaints(t *testing.T) {
	e := requireCluster(t)
	ns := e.namespace()
	k8sOSTaint := v1.Taint{Key: "node.kubernetes.io/os", Value: "windows", Effect: v1.TaintEffectNoSchedule}
	unrelated := v1.Taint{Key: "example.com/maintenance", Value: "true", Effect: v1.TaintEffectNoSchedule}
	e.createNodes(
		linuxNode("taint-linux"),
		windowsNode("taint-os", oracle.Build2019, fixture.WindowsTaint),
		windowsNode("taint-k8s-os", oracle.Build2019, k8sOSTaint),
		windowsNode("taint-both", oracle.Build2019, fixture.WindowsTaint, k8sOSTaint),
		windowsNode("taint-unrelated", oracle.Build2019, fixture.WindowsTaint, unrelated),
		windowsNode("taint-only-unrelated", oracle.Build2019, unrelated),
	)
	var names []string
	for i := range 9 {
		name := fmt.Sprintf("win-%d", i)
		e.createPod(ns, newPod(name, windowsAware, "mcr.microsoft.com/windows/servercore:ltsc2019"))
		names = append(names, name)
	}
	seen := map[string]int{}
	for name, node := range e.waitAllScheduled(ns, names, scheduleTimeout) {
		seen[node.Name]++
		switch node.Name {
		case "taint-os", "taint-k8s-os", "taint-both":
		default:
			t.Errorf("%s landed on %s, want a node with only OS taints", name, node.Name)
		}
	}
	t.Logf("placement: %v", seen)

	// Every OS-tainted node also gets the unrelated taint: the next pod waits.
	for _, n := range []string{"taint-os", "taint-k8s-os", "taint-both"} {
		e.patchTaints(n, append(e.getNode(n).Spec.Taints, unrelated))
	}
	e.createPod(ns, newPod("repelled", windowsAware, "mcr.microsoft.com/windows/servercore:ltsc2019"))
	msg := e.failedScheduling(ns, "repelled", scheduleTimeout)
	if !strings.Contains(msg, "untolerated taint") {
		t.Errorf("FailedScheduling message %q does not name the taint", msg)
	}

	// A toleration of the unrelated taint lets it through again.
	tol := newPod("tolerates-maintenance", windowsAware, "mcr.microsoft.com/windows/servercore:ltsc2019")
	tol.Spec.Tolerations = []v1.Toleration{{Key: unrelated.Key, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}}
	e.createPod(ns, tol)
	if node := e.waitScheduled(ns, tol.Name, scheduleTimeout); osOf(node) != "windows" || buildOf(node) != oracle.Build2019 {
		t.Errorf("%s landed on %s (%s %s)", tol.Name, node.Name, osOf(node), buildOf(node))
	}
}

// TestHostProcessPodsGoToAnyWindowsNode: HostProcess pods run on the host,
// so any Windows build takes them, even with an image tag of a build no
// node has; never a Linux node.
func TestHostProcessPodsGoToAnyWindowsNode(t *testing.T) {
	e := requireCluster(t)
	ns := e.namespace()
	e.createNodes(
		fixture.Node("hp-linux", fixture.NodeOptions{OS: "linux"}),
		fixture.Node("hp-2016", fixture.NodeOptions{OS: "windows", Build: oracle.Build2016, Taints: []v1.Taint{fixture.WindowsTaint}, Pods: 2}),
		fixture.Node("hp-2025", fixture.NodeOptions{OS: "windows", Build: oracle.Build2025, Taints: []v1.Taint{fixture.WindowsTaint}, Pods: 2}),
	)
	images := []string{
		"mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image:v1.0.0",
		"mcr.microsoft.com/windows/nanoserver:ltsc2019", // no 2019 node: the build does not matter
		"mcr.microsoft.com/windows/servercore:ltsc2022",
		"mcr.microsoft.com/windows/servercore:ltsc2016",
	}
	var names []string
	for i, img := range images {
		p := hostProcess(newPod(fmt.Sprintf("hostprocess-%d", i), windowsAware, img))
		e.createPod(ns, p)
		names = append(names, p.Name)
	}
	builds := map[string]int{}
	for name, node := range e.waitAllScheduled(ns, names, scheduleTimeout) {
		if osOf(node) != "windows" {
			t.Errorf("HostProcess pod %s landed on %s (%s)", name, node.Name, osOf(node))
		}
		builds[buildOf(node)]++
	}
	t.Logf("HostProcess pods per build: %v", builds)
	if builds[oracle.Build2016] != 2 || builds[oracle.Build2025] != 2 {
		t.Errorf("4 HostProcess pods on two Windows nodes of 2 pods each: got %v, want 2 on each build", builds)
	}
}

// TestSeveralContainersAndInitContainers: a node must run every image of
// a pod, init containers included.
func TestSeveralContainersAndInitContainers(t *testing.T) {
	e := requireCluster(t)
	ns := e.namespace()
	e.createNodes(
		linuxNode("multi-linux"),
		windowsNode("multi-2019", oracle.Build2019, fixture.WindowsTaint),
		windowsNode("multi-2022", oracle.Build2022, fixture.WindowsTaint),
		windowsNode("multi-2025", oracle.Build2025, fixture.WindowsTaint),
	)
	// ltsc2022 and ltsc2025 images together: only a 2025 host runs both.
	mixed := newPod("init-2022-main-2025", windowsAware, "mcr.microsoft.com/windows/nanoserver:ltsc2025", "mcr.microsoft.com/powershell:lts-nanoserver-ltsc2022")
	mixed.Spec.InitContainers = []v1.Container{{Name: "init", Image: "mcr.microsoft.com/windows/servercore:ltsc2022"}}
	e.createPod(ns, mixed)
	// An init container of 2019 with a main container that names no build.
	init2019 := newPod("init-2019", windowsAware, "mcr.microsoft.com/dotnet/framework/aspnet:4.8")
	init2019.Spec.InitContainers = []v1.Container{{Name: "init", Image: "mcr.microsoft.com/windows/servercore:ltsc2019"}}
	e.createPod(ns, init2019)
	// A multi-arch sidecar beside a 2022 image.
	sidecar := newPod("sidecar-2022", windowsAware, "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022", "registry.k8s.io/pause:3.10")
	e.createPod(ns, sidecar)

	want := map[string]string{mixed.Name: oracle.Build2025, init2019.Name: oracle.Build2019, sidecar.Name: oracle.Build2022}
	for name, node := range e.waitAllScheduled(ns, []string{mixed.Name, init2019.Name, sidecar.Name}, scheduleTimeout) {
		if buildOf(node) != want[name] {
			t.Errorf("%s landed on %s (build %s), want build %s", name, node.Name, buildOf(node), want[name])
		}
	}

	// 1809 beside ltsc2022: no host runs both; the event says which.
	conflict := newPod("init-1809-main-2022", windowsAware, "mcr.microsoft.com/windows/nanoserver:ltsc2022")
	conflict.Spec.InitContainers = []v1.Container{{Name: "init", Image: "mcr.microsoft.com/windows/servercore:1809"}}
	e.createPod(ns, conflict)
	msg := e.failedScheduling(ns, conflict.Name, scheduleTimeout)
	for _, part := range []string{"no single host", "10.0.17763", "10.0.20348"} {
		if !strings.Contains(msg, part) {
			t.Errorf("FailedScheduling message %q does not contain %q", msg, part)
		}
	}
}

// TestMalformedBuildLabelsGiveAReason: a node.kubernetes.io/windows-build
// label the kubelet would never write rejects the node with a reason, and
// crashes nothing.
func TestMalformedBuildLabelsGiveAReason(t *testing.T) {
	e := requireCluster(t)
	ns := e.namespace()
	bad := []string{"banana", "10.0", "10.0.17763.4131", "10.0.x", "99999999999.0.1", "10..17763"}
	nodes := []*v1.Node{linuxNode("malformed-linux")}
	for i, label := range bad {
		nodes = append(nodes, fixture.Node(fmt.Sprintf("malformed-%d", i), fixture.NodeOptions{
			OS: "windows", Labels: map[string]string{v1.LabelWindowsBuild: label}, KernelVersion: "10.0.17763.4131",
		}))
	}
	e.createNodes(nodes...)
	for _, img := range []string{"mcr.microsoft.com/windows/servercore:ltsc2019", "mcr.microsoft.com/windows/servercore:10.0.17763.4131"} {
		name := "malformed-" + strings.NewReplacer(":", "-", "/", "-", ".", "-").Replace(img[strings.LastIndex(img, ":")+1:])
		e.createPod(ns, newPod(name, windowsAware, img))
		msg := e.failedScheduling(ns, name, scheduleTimeout)
		want := fmt.Sprintf("%d node(s) had a malformed Windows build label", len(bad))
		if !strings.Contains(msg, want) {
			t.Errorf("FailedScheduling message %q does not contain %q", msg, want)
		}
	}
	// A HostProcess pod needs no build: the malformed label does not matter.
	hp := hostProcess(newPod("malformed-hostprocess", windowsAware, "mcr.microsoft.com/windows/nanoserver:ltsc2019"))
	e.createPod(ns, hp)
	if node := e.waitScheduled(ns, hp.Name, scheduleTimeout); osOf(node) != "windows" {
		t.Errorf("HostProcess pod landed on %s (%s)", node.Name, osOf(node))
	}
	time.Sleep(time.Second)
	e.schedulersAlive()
}

// TestUnlabelledNodeTakesLinuxPodsOnly: a node with no kubernetes.io/os
// label, as upstream's scheduler_perf creates them, takes a windows-aware
// pod without .spec.os (defaultOS linux) as the stock profile would, and
// never a Windows pod. A taint there whose value is empty is an ordinary
// taint: the pod it repels is scheduled as soon as it is lifted, well
// before the queue's periodic flush.
func TestUnlabelledNodeTakesLinuxPodsOnly(t *testing.T) {
	e := requireCluster(t)
	ns := e.namespace()
	node := fixture.Node("nolabel", fixture.NodeOptions{Taints: []v1.Taint{{Key: "os", Effect: v1.TaintEffectNoSchedule}}})
	node.Labels = map[string]string{v1.LabelHostname: node.Name}
	e.createNodes(node)

	e.createPod(ns, newPod("linux", windowsAware, "nginx:1.27"))
	if msg := e.failedScheduling(ns, "linux", scheduleTimeout); !strings.Contains(msg, "untolerated taint") {
		t.Fatalf("FailedScheduling message %q does not name the taint", msg)
	}
	win := newPod("windows", windowsAware, "mcr.microsoft.com/windows/nanoserver:ltsc2022")
	win.Spec.OS = &v1.PodOS{Name: v1.Windows}
	e.createPod(ns, win)
	if msg := e.failedScheduling(ns, "windows", scheduleTimeout); !strings.Contains(msg, "didn't match Pod's OS") {
		t.Fatalf("FailedScheduling message %q does not say the unlabelled node has the wrong OS", msg)
	}

	lifted, err := e.client.CoreV1().Nodes().Get(e.ctx, node.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lifted.Spec.Taints = nil
	if _, err := e.client.CoreV1().Nodes().Update(e.ctx, lifted, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := e.waitScheduled(ns, "linux", scheduleTimeout); got.Name != node.Name {
		t.Errorf("the Linux pod landed on %s, want %s", got.Name, node.Name)
	}
	if p := e.getPod(ns, "windows"); p.Spec.NodeName != "" {
		t.Errorf("the Windows pod was bound to %s, a node with no OS label", p.Spec.NodeName)
	}
}
