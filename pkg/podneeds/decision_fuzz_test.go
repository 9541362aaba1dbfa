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

package podneeds_test

import (
	"cmp"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
)

// fuzzedNode is a node with the labels of FuzzDecide's input, and no
// others: built by hand, since no kubelet writes most of them.
func fuzzedNode(osLabel, buildLabel, kernel string) *v1.Node {
	n := &v1.Node{}
	n.Name, n.Labels = "n", map[string]string{}
	if osLabel != "" {
		n.Labels[v1.LabelOSStable] = osLabel
	}
	if buildLabel != "" {
		n.Labels[v1.LabelWindowsBuild] = buildLabel
	}
	n.Status.NodeInfo.KernelVersion = kernel
	return n
}

// FuzzDecide generates pods (images, .spec.os, HostProcess, OS and build
// selectors) and nodes (OS, build label, kernel version), and holds the
// decision to its own rules:
//
//   - deciding never panics;
//   - a conflicting pod runs on no node, with its conflict as the reason;
//   - RunsOn says what the verdict says, with the verdict's reason, on the
//     node and on the host read from it;
//   - a node of another OS than the decided one never fits.
func FuzzDecide(f *testing.F) {
	f.Add(img2019, "", "", uint8(0), false, "", "", "windows", "10.0.17763", "10.0.17763.1")
	f.Add(img2022, imgLinux, "", uint8(1), false, "", "", "windows", "10.0.26100", "")
	f.Add(imgNano, "", "", uint8(2), false, "windows", "10.0.20348", "Windows", "", "10.0.20348.5")
	f.Add(imgLinux, "", "", uint8(0), true, "", "", "linux", "", "6.8.0")
	f.Add("ghcr.io/acme/app:1.0-windows", img1809, "x:ltsc2019-1809", uint8(1), false, "linux", "banana", "windows", "banana", "")
	f.Add("mcr.microsoft.com/windows/servercore:10.0.20344.1", "servercore1809", ":::", uint8(3), false, "", "10.0.17763", "", "10.0.17763", "10.0.17763.99")
	dr := decider(f)
	f.Fuzz(func(t *testing.T, img1, img2, initImg string, osChoice uint8, hostProc bool, selOS, selBuild, nodeOSLabel, nodeBuildLabel, kernel string) {
		pod := fixture.FuzzedPod("", img1, img2, initImg, osChoice, hostProc, selOS, selBuild)
		node := fuzzedNode(nodeOSLabel, nodeBuildLabel, kernel)

		d := dr.Decide(pod, nil)
		ok, reason := d.RunsOn(node)
		if d.Conflict() != "" {
			if ok || reason != d.Conflict() {
				t.Fatalf("a conflicting pod (%s) runs on a node: %v, %q", d.Conflict(), ok, reason)
			}
			return
		}
		verdict := d.VerdictOnNode(node)
		host := podneeds.HostOf(node)
		if onHost := d.Verdict(&host); onHost != verdict {
			t.Fatalf("verdict on the node %v, on its host %v", verdict, onHost)
		}
		if ok != (reason == "") || reason != podneeds.Reason(verdict) {
			t.Fatalf("RunsOn = %v, %q; the verdict %v, whose reason is %q", ok, reason, verdict, podneeds.Reason(verdict))
		}
		// A node with no OS label is a Linux node, as every kubelet would
		// have labelled it.
		if os := cmp.Or(podneeds.NodeOS(node), "linux"); ok && d.OS() != "" && !strings.EqualFold(os, d.OS()) {
			t.Fatalf("a %s pod runs on a node of OS %q", d.OS(), podneeds.NodeOS(node))
		}
	})
}
