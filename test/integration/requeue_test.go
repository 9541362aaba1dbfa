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
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/oracle"
)

// requeueLimit is how soon a pending pod must bind once a node fits it:
// far below the 5-minute flush of unschedulable pods, so only the plugins'
// queueing hints can explain it.
const requeueLimit = 30 * time.Second

// TestRequeueWhenANodeJoins: a pending ltsc2025 pod binds within seconds
// of a 2025 node joining.
func TestRequeueWhenANodeJoins(t *testing.T) {
	e := requireCluster(t)
	ns := e.namespace()
	e.createNodes(linuxNode("join-linux"), windowsNode("join-2022", oracle.Build2022, fixture.WindowsTaint))
	e.createPod(ns, newPod("waits-for-2025", windowsAware, "mcr.microsoft.com/windows/servercore:ltsc2025"))
	msg := e.failedScheduling(ns, "waits-for-2025", scheduleTimeout)
	if !strings.Contains(msg, "incompatible Windows build") {
		t.Errorf("FailedScheduling message %q does not name the build", msg)
	}
	// Let it settle in the unschedulable queue, past the first backoff.
	time.Sleep(2 * time.Second)

	joined := time.Now()
	e.createNodes(windowsNode("join-2025", oracle.Build2025, fixture.WindowsTaint))
	node := e.waitScheduled(ns, "waits-for-2025", requeueLimit)
	took := time.Since(joined)
	t.Logf("bound to %s %s after the node joined", node.Name, took.Round(time.Millisecond))
	if node.Name != "join-2025" {
		t.Errorf("bound to %s, want join-2025", node.Name)
	}
}

// TestRequeueWhenALabelIsFixed: a pod waiting on a node whose build label
// is malformed (banana) binds when the label is corrected.
func TestRequeueWhenALabelIsFixed(t *testing.T) {
	e := requireCluster(t)
	ns := e.namespace()
	e.createNodes(
		linuxNode("label-linux"),
		fixture.Node("label-banana", fixture.NodeOptions{
			OS: "windows", Labels: map[string]string{v1.LabelWindowsBuild: "banana"},
			KernelVersion: "10.0.26100.4061", Taints: []v1.Taint{fixture.WindowsTaint},
		}),
	)
	e.createPod(ns, newPod("waits-for-label", windowsAware, "mcr.microsoft.com/windows/servercore:ltsc2025"))
	msg := e.failedScheduling(ns, "waits-for-label", scheduleTimeout)
	if !strings.Contains(msg, "node(s) had a malformed Windows build label") {
		t.Errorf("FailedScheduling message %q does not name the malformed label", msg)
	}
	time.Sleep(2 * time.Second)

	fixed := time.Now()
	e.patchLabel("label-banana", v1.LabelWindowsBuild, oracle.Build2025)
	node := e.waitScheduled(ns, "waits-for-label", requeueLimit)
	t.Logf("bound to %s %s after the label was fixed", node.Name, time.Since(fixed).Round(time.Millisecond))
	if node.Name != "label-banana" {
		t.Errorf("bound to %s, want label-banana", node.Name)
	}
	e.schedulersAlive()
}

// windows2019 is the seeds' RuntimeClass, as the guide writes it.
func windows2019() *nodev1.RuntimeClass {
	return &nodev1.RuntimeClass{
		ObjectMeta: metav1.ObjectMeta{Name: "windows-2019"},
		Handler:    "docker",
		Scheduling: &nodev1.Scheduling{
			NodeSelector: map[string]string{
				"kubernetes.io/os":                 "windows",
				"kubernetes.io/arch":               "amd64",
				"node.kubernetes.io/windows-build": "10.0.17763",
			},
			Tolerations: []v1.Toleration{{Effect: v1.TaintEffectNoSchedule, Key: "os", Operator: v1.TolerationOpEqual, Value: "windows"}},
		},
	}
}

// TestRuntimeClassWindows2019: RuntimeClass admission merges the seeds'
// windows-2019 RuntimeClass into the pod; the windows-aware scheduler
// places an ltsc2019 pod on a 2019 node, and reports an ltsc2022 pod under
// the same RuntimeClass as a conflict instead of binding it.
func TestRuntimeClassWindows2019(t *testing.T) {
	e := requireCluster(t)
	ns := e.namespace()
	_, err := e.client.NodeV1().RuntimeClasses().Create(e.ctx, windows2019(), metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	e.createNodes(
		linuxNode("rc-linux"),
		windowsNode("rc-2019", oracle.Build2019, fixture.WindowsTaint),
		windowsNode("rc-2022", oracle.Build2022, fixture.WindowsTaint),
		windowsNode("rc-2025", oracle.Build2025, fixture.WindowsTaint),
	)

	for _, scheduler := range []string{windowsAware, defaultScheduler} {
		p := newPod("iis-2019-"+scheduler, scheduler, "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019")
		p.Spec.RuntimeClassName = ptr.To("windows-2019")
		created := e.createPod(ns, p)
		if created.Spec.NodeSelector[v1.LabelWindowsBuild] != oracle.Build2019 || len(created.Spec.Tolerations) == 0 {
			t.Fatalf("RuntimeClass admission did not merge windows-2019: nodeSelector %v, tolerations %v", created.Spec.NodeSelector, created.Spec.Tolerations)
		}
		if node := e.waitScheduled(ns, p.Name, scheduleTimeout); node.Name != "rc-2019" {
			t.Errorf("%s: pod landed on %s, want rc-2019", scheduler, node.Name)
		}
	}

	wrong := newPod("iis-2022-under-windows-2019", windowsAware, "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022")
	wrong.Spec.RuntimeClassName = ptr.To("windows-2019")
	e.createPod(ns, wrong)
	msg := e.failedScheduling(ns, wrong.Name, scheduleTimeout)
	t.Logf("FailedScheduling: %s", msg)
	for _, part := range []string{`RuntimeClass "windows-2019"`, "node.kubernetes.io/windows-build", "10.0.17763", "ltsc2022", "10.0.20348"} {
		if !strings.Contains(msg, part) {
			t.Errorf("FailedScheduling message %q does not contain %q", msg, part)
		}
	}
	e.staysPending(ns, wrong.Name, 2*time.Second)
}
