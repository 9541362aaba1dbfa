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
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/windows-aware/windows-aware/pkg/noderoom"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// Name is the plugin's name in the scheduler configuration.
const Name = "BindGuard"

// ReasonNoRoom is the status of a bind refused: constant, as the
// scheduler's reasons are, with the node and figures in the Event.
const ReasonNoRoom = "node had no room left at binding: pods bound by another scheduler took it"

// readTimeout bounds the list of a node's pods: past it, the bind goes on
// unguarded.
const readTimeout = 2 * time.Second

// stateKey is where Reserve leaves what the cache held on the node.
const stateKey fwk.StateKey = Name

// BindGuard refuses a bind onto a node that has no room left for the pod
// once the pods the API server holds on it are counted.
type BindGuard struct {
	handle fwk.Handle
	client kubernetes.Interface
}

var (
	_ fwk.ReservePlugin = &BindGuard{}
	_ fwk.PreBindPlugin = &BindGuard{}
)

// New is the plugin's factory; it takes no args.
func New(_ context.Context, _ runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	if h.ClientSet() == nil {
		return nil, fmt.Errorf("%s needs the scheduler's client", Name)
	}
	register()
	return &BindGuard{handle: h, client: h.ClientSet()}, nil
}

// Name returns the plugin's name.
func (g *BindGuard) Name() string { return Name }

// cached is what the scheduler's cache held on the node at Reserve.
type cached struct {
	allocatable v1.ResourceList
	pods        []*v1.Pod
}

func (c *cached) Clone() fwk.StateData { return c }

// Reserve notes the node's allocatable and the pods the cache holds on it:
// the cache's snapshot is the scheduling cycle's, which PreBind, running
// beside the next cycles, must not read.
func (g *BindGuard) Reserve(_ context.Context, state fwk.CycleState, _ *v1.Pod, nodeName string) *fwk.Status {
	info, err := g.handle.SnapshotSharedLister().NodeInfos().Get(nodeName)
	if err != nil || info.Node() == nil {
		return nil // PreBind finds no note and lets the bind go on
	}
	c := &cached{allocatable: info.Node().Status.Allocatable, pods: make([]*v1.Pod, 0, len(info.GetPods()))}
	for _, p := range info.GetPods() {
		c.pods = append(c.pods, p.GetPod())
	}
	state.Write(stateKey, c)
	return nil
}

// Unreserve has nothing to undo.
func (g *BindGuard) Unreserve(context.Context, fwk.CycleState, *v1.Pod, string) {}

// PreBind lists the node's pods from the API server and refuses the bind
// when the pod no longer fits among them and the pods the cache held.
func (g *BindGuard) PreBind(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodeName string) *fwk.Status {
	data, err := state.Read(stateKey)
	if err != nil {
		checked(resultUnread)
		return nil
	}
	c := data.(*cached)
	readCtx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	// ResourceVersion unset: a consistent read, not the watch cache's
	// possibly stale view; the watch cache still serves it, once it has
	// caught up with etcd.
	list, err := g.client.CoreV1().Pods(metav1.NamespaceAll).List(readCtx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("spec.nodeName", nodeName).String(),
	})
	if err != nil {
		checked(resultUnread)
		klog.FromContext(ctx).V(2).Info("Cannot list the node's pods; binding unguarded", "pod", klog.KObj(pod), "node", nodeName, "err", err)
		return nil
	}
	bound := make([]*v1.Pod, 0, len(list.Items)+len(c.pods))
	for i := range list.Items {
		bound = append(bound, &list.Items[i])
	}
	bound = append(bound, c.pods...)
	short := noderoom.Lacks(c.allocatable, bound, pod)
	if short == nil {
		checked(resultFits)
		return nil
	}
	checked(resultNoRoom)
	if rec := g.handle.EventRecorder(); rec != nil {
		rec.Eventf(pod, nil, v1.EventTypeWarning, wellknown.EventNoRoomAtBind, "Binding",
			"Node %s had no room left for the pod when it was to be bound: %s %s requested of %s allocatable, counting the %d pods the API server lists on it; scheduling the pod again",
			nodeName, short.Resource, short.Requested.String(), short.Allocatable.String(), len(list.Items))
	}
	klog.FromContext(ctx).V(2).Info("Refused a bind: the node has no room left", "pod", klog.KObj(pod), "node", nodeName,
		"resource", short.Resource, "requested", short.Requested.String(), "allocatable", short.Allocatable.String())
	return fwk.NewStatus(fwk.Unschedulable, ReasonNoRoom)
}
