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
	st "k8s.io/kubernetes/pkg/scheduler/testing"

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
	w2019 := windowsNode("w", "10.0.17763", "10.0.17763.1")
	banana := windowsNode("w", "banana", "")
	w2025 := windowsNode("w", "10.0.26100", "10.0.26100.1")
	tests := []hintCase{
		{"2025 node added for a 2025 pod", pod(img2025).Obj(), nil, w2025, fwk.Queue},
		{"2019 node added for a 2025 pod", pod(img2025).Obj(), nil, w2019, fwk.QueueSkip},
		{"linux node added for a 2025 pod", pod(img2025).Obj(), nil, linuxNode("l"), fwk.QueueSkip},
		{"malformed label corrected", pod(img2019).Obj(), banana, relabel(banana, "10.0.17763"), fwk.Queue},
		{"label changed to a wrong build", pod(img2019).Obj(), banana, relabel(banana, "10.0.20348"), fwk.QueueSkip},
		{"node already fitted", pod(img2019).Obj(), w2019, st.MakeNode().Name("w").Label(v1.LabelOSStable, "windows").Label(v1.LabelWindowsBuild, "10.0.17763").Label("zone", "a").Obj(), fwk.QueueSkip},
		{"linux node turns windows", withOS(pod("acme/tool:1"), v1.Windows), linuxNode("n"), st.MakeNode().Name("n").Label(v1.LabelOSStable, "windows").Obj(), fwk.Queue},
		{"a pod that contradicts itself never requeues", pod(img2019, img2022).Obj(), nil, w2025, fwk.QueueSkip},
	}
	pl, _ := newWindowsAware(defaultArgs())
	checkHints(t, pl.isSchedulableAfterNodeChange, tests)
}

// hintCase is a node event and the hint it should give for a pod; old is
// nil for a node added.
type hintCase struct {
	name     string
	pod      *v1.Pod
	old, new *v1.Node
	want     fwk.QueueingHint
}

func checkHints(t *testing.T, hint fwk.QueueingHintFn, tests []hintCase) {
	logger, _ := ktesting.NewTestContext(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var old any
			if tt.old != nil {
				old = tt.old
			}
			got, err := hint(logger, tt.pod, old, tt.new)
			if err != nil || got != tt.want {
				t.Errorf("hint = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
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
