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
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"

	"github.com/windows-aware/windows-aware/internal/fixture"
)

// FuzzFilterFollowsDecision generates pods (images, .spec.os, HostProcess,
// OS and build selectors) and nodes (OS, build label, kernel version), and
// holds the scheduling cycle to the decider's decision (the decision's own
// rules are package podneeds' FuzzDecide's):
//
//   - a conflict is exactly a PreFilter rejection, with its message;
//   - on every node, PreFilter then Filter (which read the node class
//     table) let the pod through where the decision (read from the node's
//     labels) runs it, and reject it elsewhere with the decision's reason.
func FuzzFilterFollowsDecision(f *testing.F) {
	f.Add(img2019, "", "", uint8(0), false, "", "", "windows", "10.0.17763", "10.0.17763.1")
	f.Add(img2022, imgLinux, "", uint8(1), false, "", "", "windows", "10.0.26100", "")
	f.Add(imgNano, "", "", uint8(2), false, "windows", "10.0.20348", "Windows", "", "10.0.20348.5")
	f.Add(imgLinux, "", "", uint8(0), true, "", "", "linux", "", "6.8.0")
	f.Add("ghcr.io/acme/app:1.0-windows", img1809, "x:ltsc2019-1809", uint8(1), false, "linux", "banana", "windows", "banana", "")
	f.Add("mcr.microsoft.com/windows/servercore:10.0.20344.1", "servercore1809", ":::", uint8(3), false, "", "10.0.17763", "", "10.0.17763", "10.0.17763.99")
	f.Fuzz(func(t *testing.T, img1, img2, initImg string, osChoice uint8, hostProc bool, selOS, selBuild, nodeOSLabel, nodeBuildLabel, kernel string) {
		pod := fixture.FuzzedPod("", img1, img2, initImg, osChoice, hostProc, selOS, selBuild)
		pod.Namespace, pod.UID = "ns", "p"

		labels := map[string]string{}
		if nodeOSLabel != "" {
			labels[v1.LabelOSStable] = nodeOSLabel
		}
		if nodeBuildLabel != "" {
			labels[v1.LabelWindowsBuild] = nodeBuildLabel
		}
		node := st.MakeNode().Name("n").Obj()
		node.Labels = labels
		node.Status.NodeInfo.KernelVersion = kernel

		pl, h := classedPlugin(t)
		h.OnAdd(node, true)
		d := pl.decider.Decide(pod, nil)
		runs, reason := d.RunsOn(node)

		state := newState()
		_, status := pl.PreFilter(context.Background(), state, pod, []fwk.NodeInfo{nodeInfo(node)})
		if d.Conflict() != "" {
			if status.Code() != fwk.UnschedulableAndUnresolvable || !strings.Contains(status.Message(), d.Conflict()) {
				t.Fatalf("the decision is a conflict (%s), PreFilter returned %v", d.Conflict(), status)
			}
			return
		}
		var filtered *fwk.Status
		switch {
		case status.Code() == fwk.Skip:
		case status.IsSuccess():
			filtered = pl.Filter(context.Background(), state, pod, nodeInfo(node))
		default:
			t.Fatalf("the decision is no conflict, PreFilter returned %v", status)
		}
		if filtered.IsSuccess() != runs {
			t.Fatalf("the decision says runs=%v (%s), the cycle says %v; decision %+v", runs, reason, filtered, d)
		}
		if !runs && (filtered.Code() != fwk.UnschedulableAndUnresolvable || !slices.Equal(filtered.Reasons(), []string{reason})) {
			t.Fatalf("Filter = %v, want UnschedulableAndUnresolvable with the decision's reason %q", filtered, reason)
		}
	})
}
