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

package ostainttoleration

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/hinttest"
	"github.com/windows-aware/windows-aware/internal/k8scompat"
)

func TestEventsToRegister(t *testing.T) {
	events, err := (&OSTaintToleration{}).EventsToRegister(t.Context())
	if err != nil || len(events) != 2 || events[0].Event.ActionType != fwk.Add|fwk.UpdateNodeTaint ||
		events[1].Event.Resource != k8scompat.TargetPod || events[1].Event.ActionType != fwk.UpdatePodToleration {
		t.Errorf("OSTaintToleration events = %+v, %v", events, err)
	}
}

// TestQueueingHint: a node event requeues a pod only when it lifts a taint that repelled it.
func TestQueueingHint(t *testing.T) {
	gpu := v1.Taint{Key: "gpu", Value: "x", Effect: v1.TaintEffectNoSchedule}
	tests := []hinttest.NodeCase{
		{Name: "node with only the OS taint added", Pod: pod(img2019).Obj(), New: fixture.WindowsNode("w", "10.0.17763"), Want: fwk.Queue},
		{Name: "node with an unrelated taint added", Pod: pod(img2019).Obj(), New: fixture.WindowsNode("w", "10.0.17763", fixture.WithTaints(fixture.WindowsTaint, gpu)), Want: fwk.QueueSkip},
		{Name: "unrelated taint removed", Pod: pod(img2019).Obj(), Old: fixture.WindowsNode("w", "10.0.17763", fixture.WithTaints(fixture.WindowsTaint, gpu)), New: fixture.WindowsNode("w", "10.0.17763", fixture.WithTaints(fixture.WindowsTaint)), Want: fwk.Queue},
		{Name: "unrelated taint still there", Pod: pod(img2019).Obj(), Old: fixture.WindowsNode("w", "10.0.17763", fixture.WithTaints(gpu)), New: fixture.WindowsNode("w", "10.0.17763", fixture.WithTaints(gpu, fixture.WindowsTaint)), Want: fwk.QueueSkip},
	}
	pl := &OSTaintToleration{}
	hinttest.CheckNodes(t, pl.isSchedulableAfterNodeChange, tests)
}

// TestHintOnUnlabelledNode: a node with no OS label has no
// OS taint, so a taint whose value is empty is an ordinary taint there. A
// pod it repelled is queued once it is lifted, as upstream TaintToleration
// queues it, instead of waiting for the periodic flush.
func TestHintOnUnlabelledNode(t *testing.T) {
	emptyValue := v1.Taint{Key: "os", Effect: v1.TaintEffectNoSchedule}
	keyOnly := v1.Taint{Key: "example.com/drain", Effect: v1.TaintEffectNoSchedule}
	unlabelled := func(taints ...v1.Taint) *v1.Node {
		return st.MakeNode().Name("n").Taints(taints).Obj()
	}
	tests := []hinttest.NodeCase{
		{Name: "empty-value taint lifted", Pod: pod(imgLinux).Obj(), Old: unlabelled(emptyValue), New: unlabelled(), Want: fwk.Queue},
		{Name: "key-only taint lifted", Pod: pod(imgLinux).Obj(), Old: unlabelled(keyOnly), New: unlabelled(), Want: fwk.Queue},
		{Name: "untainted node added", Pod: pod(imgLinux).Obj(), New: unlabelled(), Want: fwk.Queue},
		{Name: "node added with an empty-value taint", Pod: pod(imgLinux).Obj(), New: unlabelled(emptyValue), Want: fwk.QueueSkip},
		{Name: "one of two empty-value taints lifted", Pod: pod(imgLinux).Obj(), Old: unlabelled(emptyValue, keyOnly), New: unlabelled(keyOnly), Want: fwk.QueueSkip},
	}
	pl := &OSTaintToleration{}
	hinttest.CheckNodes(t, pl.isSchedulableAfterNodeChange, tests)
}
