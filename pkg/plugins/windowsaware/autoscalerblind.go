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
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/windows-aware/windows-aware/pkg/plugins/ostainttoleration"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// Cluster autoscalers act on the pods a scheduler leaves unschedulable,
// whatever their schedulerName, but judge where a pod fits with upstream's
// plugins or the pod's own constraints alone (see stockView). A pod whose
// OS or Windows build only WindowsAware knows looks placeable to them on
// nodes WindowsAware rejects (a selector-less Windows pod on a Linux node
// with room), so they add no node for it, or add one of the wrong OS or
// build. PostFilter makes that visible: once per pod, an Event that names
// the fix, and a count.

// maxBlindReported bounds the pods remembered as reported; the oldest are
// forgotten first, and a forgotten pod that is still pending is reported
// again.
const maxBlindReported = 10000

// PostFilter runs when no node passed Filter. It never nominates a node and
// always returns Unschedulable, so that the preemption plugins of the
// profile decide as they would without it. It looks for a node that the
// pod's own constraints admit and that WindowsAware or OSTaintToleration
// rejected, and stops at the first.
func (pl *WindowsAware) PostFilter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, statuses fwk.NodeToStatusReader) (*fwk.PostFilterResult, *fwk.Status) {
	unschedulable := fwk.NewStatus(fwk.Unschedulable)
	if pl.handle == nil || pl.handle.SnapshotSharedLister() == nil {
		return nil, unschedulable
	}
	if _, reported := pl.blindReported.Get(pod.UID); reported {
		return nil, unschedulable
	}
	// No requirements: PreFilter rejected the pod for contradicting itself
	// (no selector fixes that), or the pod needs nothing of WindowsAware.
	r, err := readRequirements(state)
	if err != nil || r.OS() == "" {
		return nil, unschedulable
	}
	nodes, err := pl.handle.SnapshotSharedLister().NodeInfos().List()
	if err != nil {
		return nil, unschedulable
	}
	logger := klog.FromContext(ctx)
	node := pl.nodeAutoscalersWouldUse(logger, r, pod, statuses, nodes)
	if node == nil {
		return nil, unschedulable
	}
	pl.blindReported.Add(pod.UID, struct{}{})
	AutoscalerBlindPods.Inc()
	logger.V(2).Info("Autoscalers would place the pod on a node the scheduler rejects", "pod", klog.KObj(pod), "node", klog.KObj(node))
	if rec := pl.handle.EventRecorder(); rec != nil {
		rec.Eventf(pod, nil, v1.EventTypeWarning, wellknown.EventAutoscalerBlind, "Scheduling", "%s", blindMessage(r))
	}
	return nil, unschedulable
}

// nodeAutoscalersWouldUse returns the first node that WindowsAware or
// OSTaintToleration rejected while the pod's own constraints admit it, or
// nil. Nodes that another plugin rejected are not looked at: an autoscaler
// runs that plugin too, or (resources) would add a node for the pod anyway.
func (pl *WindowsAware) nodeAutoscalersWouldUse(logger klog.Logger, r *requirements, pod *v1.Pod, statuses fwk.NodeToStatusReader, nodes []fwk.NodeInfo) *v1.Node {
	var view *stockView
	for _, ni := range nodes {
		node := ni.Node()
		if node == nil {
			continue
		}
		status := statuses.Get(node.Name)
		switch status.Plugin() {
		case Name, ostainttoleration.Name:
		case "":
			// A node PreFilter left out of the pod's node list carries
			// the scheduler's status for absent nodes, which names no
			// plugin: it is ours when the pod's verdict on it is.
			if status.Code() != fwk.UnschedulableAndUnresolvable || pl.verdict(r, node) == windows.Fits {
				continue
			}
		default:
			continue
		}
		if view == nil {
			view = newStockView(pod, pl.taintComparisonOperators)
		}
		if view.admits(logger, node) {
			return node
		}
	}
	return nil
}

// blindMessage names what the pod needs and the fix, without node names.
func blindMessage(r *requirements) string {
	need, selector := r.OS(), v1.LabelOSStable+": "+r.OS()
	if target := r.Target(); !target.IsZero() {
		build := target.Build.String()
		need += " build " + build
		selector += ", " + v1.LabelWindowsBuild + ": " + build
	}
	return fmt.Sprintf("the pod needs %s (%s), which cluster autoscalers do not see: its own node selector and tolerations also admit nodes of another OS or build. "+
		"Enable publish mode or add nodeSelector %s", need, describeSource(r.OSSource()), selector)
}

// describeSource says in a few words where the pod's OS came from.
func describeSource(s podneeds.Source) string {
	switch s {
	case podneeds.SourceSpec:
		return "from .spec.os.name"
	case podneeds.SourceTag:
		return "from its image tags"
	case podneeds.SourceRegistry:
		return "from the platforms its images' registry lists"
	case podneeds.SourceHostProcess:
		return "as a HostProcess pod"
	case podneeds.SourceSelector:
		return "from its node selector"
	case podneeds.SourceDefault:
		return "from the scheduler's defaultOS"
	case podneeds.SourceDaemonSet:
		return "from the node its DaemonSet pins it to"
	}
	return string(s)
}
