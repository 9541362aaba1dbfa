//go:build k8s1_35 || k8s1_36

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
)

// TestPodHintsSkipOtherPods: before Kubernetes 1.37 every pod's update
// reaches the pod-update hints; only the pending pod's own may requeue it.
func TestPodHintsSkipOtherPods(t *testing.T) {
	pending := pod(img2022).UID("pending").Obj()
	changed := pending.DeepCopy()
	changed.Spec.Containers[0].Image = img2019
	changed.Spec.Tolerations = []v1.Toleration{{Key: "os", Operator: v1.TolerationOpExists}}
	other := pending.DeepCopy()
	other.UID = "other"
	otherChanged := changed.DeepCopy()
	otherChanged.UID = "other"

	wa, err := newWindowsAware(defaultArgs())
	if err != nil {
		t.Fatal(err)
	}
	logger, _ := ktesting.NewTestContext(t)
	for _, tt := range []struct {
		name     string
		hint     fwk.QueueingHintFn
		old, new *v1.Pod
		want     fwk.QueueingHint
	}{
		{name: "WindowsAware, own image changed", hint: wa.isSchedulableAfterPodChange, old: pending, new: changed, want: fwk.Queue},
		{name: "WindowsAware, another pod's image changed", hint: wa.isSchedulableAfterPodChange, old: other, new: otherChanged, want: fwk.QueueSkip},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.hint(logger, pending, tt.old, tt.new)
			if err != nil || got != tt.want {
				t.Errorf("hint = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}
