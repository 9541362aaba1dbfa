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

	"github.com/windows-aware/windows-aware/internal/fixture"
)

// TestAutoscalerBlindEvent: a selector-less ltsc2022 pod in a cluster of
// Linux nodes and a 2019 node stays Pending. A cluster autoscaler, which
// sees only the pod's own constraints, would take it for placeable on
// Linux; the pod gets an AutoscalerBlind Event that names the fix, and the
// leader's /metrics counts it.
func TestAutoscalerBlindEvent(t *testing.T) {
	e := requireCluster(t)
	ns := e.namespace()
	nodes := []string{"blind-l1", "blind-l2", "blind-w2019"}
	e.createNodes(linuxNode(nodes[0]), linuxNode(nodes[1]), windowsNode(nodes[2], "10.0.17763", fixture.WindowsTaint))

	leader := waitLeaderProcess(t, e.c)
	s := newScraper(t, e.c)
	before := counter(s.scrape(leader), "windows_aware_autoscaler_blind_pods_total", nil)

	e.createPod(ns, newPod("blind", windowsAware, "mcr.microsoft.com/windows/nanoserver:ltsc2022"))
	e.failedScheduling(ns, "blind", scheduleTimeout)
	msg := e.waitEvent(ns, "blind", "AutoscalerBlind", scheduleTimeout)
	t.Logf("AutoscalerBlind: %s", msg)
	for _, want := range []string{
		"the pod needs windows build 10.0.20348 (from its image tags)",
		"Enable publish mode or add nodeSelector kubernetes.io/os: windows, node.kubernetes.io/windows-build: 10.0.20348",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("AutoscalerBlind event %q lacks %q", msg, want)
		}
	}
	for _, n := range nodes {
		if strings.Contains(msg, n) {
			t.Errorf("AutoscalerBlind event %q names node %s", msg, n)
		}
	}

	if now := waitLeaderProcess(t, e.c); now != leader {
		t.Fatalf("the lead moved from %s to %s during the test", leader.Name, now.Name)
	}
	// PostFilter counts before the scheduler writes the pod's condition
	// and records its Events: the counter holds the pod by now.
	if rise := counter(s.scrape(leader), "windows_aware_autoscaler_blind_pods_total", nil) - before; rise != 1 {
		t.Errorf("windows_aware_autoscaler_blind_pods_total rose by %v, want 1", rise)
	}
}
