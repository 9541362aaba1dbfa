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

package bindguard

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	"k8s.io/component-base/metrics/testutil"
	"k8s.io/klog/v2/ktesting"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultbinder"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/queuesort"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	tf "k8s.io/kubernetes/pkg/scheduler/testing/framework"

	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// TestBindGuard: at PreBind the pod is checked against the pods the API
// server lists on its node and those the cache held at Reserve; a bind
// that no longer fits is refused with a constant reason and an Event, and
// one whose read fails goes on.
func TestBindGuard(t *testing.T) {
	tests := []struct {
		name string
		// api are the pods the API server holds on node "n" (and one on
		// "other", which the field selector leaves out); cached those
		// the scheduler's cache holds on "n".
		api, cached []*v1.Pod
		listErr     error
		noReserve   bool
		refused     bool
		result      string
	}{
		{name: "room left", api: pods("api", 7), result: resultFits},
		{name: "another scheduler's pods took the room", api: pods("api", 8), refused: true, result: resultNoRoom},
		{name: "our pod still being bound counts", api: pods("api", 7), cached: pods("assumed", 1), refused: true, result: resultNoRoom},
		{name: "a pod both list counts once", api: pods("same", 7), cached: pods("same", 7), result: resultFits},
		{name: "a failed read binds unguarded", api: pods("api", 8), listErr: errors.New("etcdserver: request timed out"), result: resultUnread},
		{name: "no note from Reserve binds unguarded", api: pods("api", 8), noReserve: true, result: resultUnread},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ctx := ktesting.NewTestContext(t)
			node := &v1.Node{
				ObjectMeta: metav1.ObjectMeta{Name: "n"},
				Status: v1.NodeStatus{Allocatable: v1.ResourceList{
					v1.ResourceCPU: resource.MustParse("4"), v1.ResourcePods: resource.MustParse("110"),
				}},
			}
			var objs []runtime.Object
			for _, p := range tt.api {
				objs = append(objs, p)
			}
			elsewhere := pods("elsewhere", 1)[0]
			elsewhere.Spec.NodeName = "other"
			objs = append(objs, elsewhere)
			client := fake.NewClientset(objs...)
			client.PrependReactor("list", "pods", listOnNode(client, tt.listErr))
			recorder := events.NewFakeRecorder(10)
			f, err := tf.NewFramework(ctx, []tf.RegisterPluginFunc{
				tf.RegisterQueueSortPlugin(queuesort.Name, queuesort.New),
				tf.RegisterBindPlugin(defaultbinder.Name, defaultbinder.New),
				tf.RegisterReservePlugin(Name, New),
				tf.RegisterPreBindPlugin(Name, New),
			}, "windows-aware",
				frameworkruntime.WithClientSet(client),
				frameworkruntime.WithEventRecorder(recorder),
				frameworkruntime.WithSnapshotSharedLister(cache.NewSnapshot(tt.cached, []*v1.Node{node})),
			)
			if err != nil {
				t.Fatal(err)
			}
			pod := pods("new", 1)[0]
			pod.Spec.NodeName = ""
			state := framework.NewCycleState()
			if !tt.noReserve {
				if s := f.RunReservePluginsReserve(ctx, state, pod, "n"); !s.IsSuccess() {
					t.Fatalf("Reserve: %v", s)
				}
			}
			before := count(t, tt.result)
			s := f.RunPreBindPlugins(ctx, state, pod, "n")
			if got := !s.IsSuccess(); got != tt.refused {
				t.Fatalf("PreBind refused %v (%v), want %v", got, s, tt.refused)
			}
			if tt.refused {
				if s.Code() != fwk.Unschedulable || !strings.Contains(s.Message(), ReasonNoRoom) {
					t.Errorf("status %v, want Unschedulable %q", s, ReasonNoRoom)
				}
				select {
				case e := <-recorder.Events:
					if !strings.Contains(e, wellknown.EventNoRoomAtBind) || !strings.Contains(e, "Node n") || !strings.Contains(e, "cpu 4500m requested of 4 allocatable") {
						t.Errorf("Event %q lacks the reason, node or figures", e)
					}
				default:
					t.Error("no Event")
				}
			}
			if after := count(t, tt.result); after != before+1 {
				t.Errorf("bind_guard_checks_total{result=%q} went from %v to %v, want one more", tt.result, before, after)
			}
		})
	}
}

// pods are n pods of 500m bound to node "n", named and with UIDs prefix-i.
func pods(prefix string, n int) []*v1.Pod {
	var out []*v1.Pod
	for i := range n {
		name := fmt.Sprintf("%s-%d", prefix, i)
		out = append(out, &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID(name)},
			Spec: v1.PodSpec{NodeName: "n", Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{
				Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("500m")},
			}}}},
		})
	}
	return out
}

// listOnNode answers a list of pods with the tracker's pods that match the
// request's spec.nodeName field selector, which the fake clientset ignores,
// or with err.
func listOnNode(client *fake.Clientset, err error) k8stesting.ReactionFunc {
	return func(action k8stesting.Action) (bool, runtime.Object, error) {
		if err != nil {
			return true, nil, err
		}
		fields := action.(k8stesting.ListAction).GetListRestrictions().Fields
		obj, trackerErr := client.Tracker().List(v1.SchemeGroupVersion.WithResource("pods"), v1.SchemeGroupVersion.WithKind("Pod"), "")
		if trackerErr != nil {
			return true, nil, trackerErr
		}
		list := obj.(*v1.PodList)
		var on []v1.Pod
		for _, p := range list.Items {
			if value, ok := fields.RequiresExactMatch("spec.nodeName"); ok && p.Spec.NodeName == value {
				on = append(on, p)
			}
		}
		list.Items = on
		return true, list, nil
	}
}

// count is the bind_guard_checks_total series of result.
func count(t *testing.T, result string) float64 {
	t.Helper()
	register()
	v, err := testutil.GetCounterMetricValue(Checks.WithLabelValues(result))
	if err != nil {
		t.Fatal(err)
	}
	return v
}
