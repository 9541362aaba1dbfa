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
	"cmp"
	"context"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"

	"github.com/windows-aware/windows-aware/pkg/podneeds"
)

// FuzzDecide generates pods (images, .spec.os, HostProcess, OS and build
// selectors) and nodes (OS, build label, kernel version), and holds the
// decision to what the scheduling cycle does with it:
//
//   - deciding never panics;
//   - a conflict is exactly a PreFilter rejection;
//   - on every node, the decision's verdict (read from the node's labels)
//     equals PreFilter then Filter (read from the node class table), and a
//     node of another OS than the decided one never fits.
func FuzzDecide(f *testing.F) {
	f.Add(img2019, "", "", uint8(0), false, "", "", "windows", "10.0.17763", "10.0.17763.1")
	f.Add(img2022, imgLinux, "", uint8(1), false, "", "", "windows", "10.0.26100", "")
	f.Add(imgNano, "", "", uint8(2), false, "windows", "10.0.20348", "Windows", "", "10.0.20348.5")
	f.Add(imgLinux, "", "", uint8(0), true, "", "", "linux", "", "6.8.0")
	f.Add("ghcr.io/acme/app:1.0-windows", img1809, "x:ltsc2019-1809", uint8(1), false, "linux", "banana", "windows", "banana", "")
	f.Add("mcr.microsoft.com/windows/servercore:10.0.20344.1", "servercore1809", ":::", uint8(3), false, "", "10.0.17763", "", "10.0.17763", "10.0.17763.99")
	f.Fuzz(func(t *testing.T, img1, img2, initImg string, osChoice uint8, hostProc bool, selOS, selBuild, nodeOSLabel, nodeBuildLabel, kernel string) {
		p := st.MakePod().Name("p").Namespace("ns").UID("p")
		for _, img := range []string{img1, img2} {
			if img != "" {
				p = p.Container(img)
			}
		}
		pod := p.Obj()
		if initImg != "" {
			pod.Spec.InitContainers = []v1.Container{{Name: "init", Image: initImg}}
		}
		switch osChoice % 4 {
		case 1:
			pod.Spec.OS = &v1.PodOS{Name: v1.Linux}
		case 2:
			pod.Spec.OS = &v1.PodOS{Name: v1.Windows}
		}
		if hostProc {
			pod = hostProcess(st.MakePod().Name("p").Namespace("ns").UID("p").Container(img1))
		}
		selector := map[string]string{}
		if selOS != "" {
			selector[v1.LabelOSStable] = selOS
		}
		if selBuild != "" {
			selector[v1.LabelWindowsBuild] = selBuild
		}
		if len(selector) > 0 {
			pod.Spec.NodeSelector = selector
		}

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
		d := pl.Decide(pod)
		fits, reason := d.RunsOn(node)

		state := newState()
		_, status := pl.PreFilter(context.Background(), state, pod, []fwk.NodeInfo{nodeInfo(node)})
		if d.Conflict() != "" {
			if status.Code() != fwk.UnschedulableAndUnresolvable || !strings.Contains(status.Message(), d.Conflict()) {
				t.Fatalf("Decide found a conflict (%s), PreFilter returned %v", d.Conflict(), status)
			}
			if fits {
				t.Fatalf("a conflicting pod fits a node")
			}
			return
		}
		var cycleFits bool
		switch {
		case status.Code() == fwk.Skip:
			cycleFits = true
		case status.IsSuccess():
			cycleFits = pl.Filter(context.Background(), state, pod, nodeInfo(node)).IsSuccess()
		default:
			t.Fatalf("Decide found no conflict, PreFilter returned %v", status)
		}
		if fits != cycleFits {
			t.Fatalf("Decide says fits=%v (%s), the cycle says %v; decision %+v", fits, reason, cycleFits, d)
		}
		// A node with no OS label is a Linux node, as every kubelet would
		// have labelled it.
		if os := cmp.Or(podneeds.NodeOS(node), "linux"); fits && d.OS() != "" && !strings.EqualFold(os, d.OS()) {
			t.Fatalf("a %s pod fits a node of OS %q", d.OS(), podneeds.NodeOS(node))
		}
	})
}
