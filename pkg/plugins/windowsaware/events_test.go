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
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2/ktesting"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/hinttest"
	"github.com/windows-aware/windows-aware/internal/k8scompat"
)

func TestEventsToRegister(t *testing.T) {
	pl, _ := newWindowsAware(defaultArgs())
	events, err := pl.EventsToRegister(t.Context())
	if err != nil || len(events) != 2 || events[0].Event.Resource != fwk.Node ||
		events[0].Event.ActionType != fwk.Add|fwk.UpdateNodeLabel ||
		events[1].Event.Resource != k8scompat.TargetPod || events[1].Event.ActionType != fwk.Update {
		t.Errorf("WindowsAware events = %+v, %v", events, err)
	}
}

func TestWindowsAwareQueueingHint(t *testing.T) {
	relabel := func(n *v1.Node, build string) *v1.Node {
		n = n.DeepCopy()
		n.Labels[v1.LabelWindowsBuild] = build
		return n
	}
	w2019 := fixture.WindowsNode("w", "10.0.17763")
	banana := fixture.WindowsNode("w", "banana", fixture.WithKernel(""))
	w2025 := fixture.WindowsNode("w", "10.0.26100")
	tests := []hinttest.NodeCase{
		{Name: "2025 node added for a 2025 pod", Pod: pod(img2025).Obj(), New: w2025, Want: fwk.Queue},
		{Name: "2019 node added for a 2025 pod", Pod: pod(img2025).Obj(), New: w2019, Want: fwk.QueueSkip},
		{Name: "linux node added for a 2025 pod", Pod: pod(img2025).Obj(), New: fixture.LinuxNode("l"), Want: fwk.QueueSkip},
		{Name: "malformed label corrected", Pod: pod(img2019).Obj(), Old: banana, New: relabel(banana, "10.0.17763"), Want: fwk.Queue},
		{Name: "label changed to a wrong build", Pod: pod(img2019).Obj(), Old: banana, New: relabel(banana, "10.0.20348"), Want: fwk.QueueSkip},
		{Name: "node already fitted", Pod: pod(img2019).Obj(), Old: w2019, New: fixture.WindowsNode("w", "10.0.17763", fixture.WithLabel("zone", "a")), Want: fwk.QueueSkip},
		{Name: "linux node turns windows", Pod: withOS(pod("acme/tool:1"), v1.Windows), Old: fixture.LinuxNode("n"), New: fixture.WindowsNode("n", ""), Want: fwk.Queue},
		{Name: "a pod that contradicts itself never requeues", Pod: pod(img2019, img2022).Obj(), New: w2025, Want: fwk.QueueSkip},
	}
	pl, _ := newWindowsAware(defaultArgs())
	hinttest.CheckNodes(t, pl.isSchedulableAfterNodeChange, tests)
}

func TestWindowsAwarePodChangeHint(t *testing.T) {
	base := pod(img2022).Obj()
	newImage := base.DeepCopy()
	newImage.Spec.Containers[0].Image = img2019
	newLabel := base.DeepCopy()
	newLabel.Labels = map[string]string{"app": "x"}
	newSelector := base.DeepCopy()
	newSelector.Spec.NodeSelector = map[string]string{v1.LabelWindowsBuild: "10.0.20348"}
	newToleration := base.DeepCopy()
	newToleration.Spec.Tolerations = []v1.Toleration{{Key: "gpu", Operator: v1.TolerationOpExists}}

	pl, _ := newWindowsAware(defaultArgs())
	logger, _ := ktesting.NewTestContext(t)
	for name, tc := range map[string]struct {
		new  *v1.Pod
		want fwk.QueueingHint
	}{
		"image changed":      {newImage, fwk.Queue},
		"selector changed":   {newSelector, fwk.Queue},
		"label changed":      {newLabel, fwk.QueueSkip},
		"toleration changed": {newToleration, fwk.QueueSkip},
	} {
		got, err := pl.isSchedulableAfterPodChange(logger, tc.new, base, tc.new)
		if err != nil || got != tc.want {
			t.Errorf("%s: hint = %v, %v; want %v", name, got, err, tc.want)
		}
	}
}
