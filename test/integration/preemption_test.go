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
	"context"
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/oracle"
)

// TestPreemption: the windows-aware profile preempts as the stock one
// does, through WindowsAwarePreemption in DefaultPreemption's place. A
// Windows node with room for one pod holds a low-priority pod; a
// high-priority pod of the same image evicts it and is bound to the node.
// The preemption is asynchronous (upstream's default), so the preemptor
// comes back through the PreEnqueue the plugin wraps.
func TestPreemption(t *testing.T) {
	e := requireCluster(t)
	ns := e.namespace()
	const node = "preempt-win-2019"
	// Room for one pod.
	e.createNodes(fixture.Node(node, fixture.NodeOptions{OS: oracle.Windows, Build: oracle.Build2019, Pods: 1}))
	suffix := fmt.Sprint(time.Now().UnixNano() % 100000)
	low, high := e.priorityClass("low-"+suffix, 100), e.priorityClass("high-"+suffix, 1000)

	pod := func(name, class string) *v1.Pod {
		p := newPod(name, windowsAware, "mcr.microsoft.com/windows/servercore:ltsc2019")
		p.Spec.PriorityClassName = class
		// The node alone, whatever other tests left behind.
		p.Spec.NodeSelector = map[string]string{v1.LabelHostname: node}
		// No kubelet runs here to end a graceful deletion: the victim
		// goes at once, as scheduler_perf's do.
		p.Spec.TerminationGracePeriodSeconds = ptr.To[int64](0)
		return p
	}
	e.createPod(ns, pod("victim", low))
	if got := e.waitScheduled(ns, "victim", scheduleTimeout); got.Name != node {
		t.Fatalf("victim on %s, want %s", got.Name, node)
	}
	e.createPod(ns, pod("preemptor", high))
	if got := e.waitScheduled(ns, "preemptor", scheduleTimeout); got.Name != node {
		t.Errorf("preemptor on %s, want %s", got.Name, node)
	}
	if _, err := e.client.CoreV1().Pods(ns).Get(e.ctx, "victim", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the victim is still there (err %v) with the preemptor bound", err)
	}
}

// priorityClass creates a PriorityClass of value and deletes it when the
// test ends; it returns the class's name.
func (e *env) priorityClass(name string, value int32) string {
	e.t.Helper()
	pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value}
	if _, err := e.client.SchedulingV1().PriorityClasses().Create(e.ctx, pc, metav1.CreateOptions{}); err != nil {
		e.t.Fatalf("creating PriorityClass %s: %v", name, err)
	}
	e.t.Cleanup(func() {
		_ = e.client.SchedulingV1().PriorityClasses().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	return name
}
