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
	"slices"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/windows-aware/windows-aware/pkg/podneeds"
)

// Signature fragments of what WindowsAware reads from a pod beyond the
// framework's shared signers.
const (
	imagesSignerName      = "v1.Pod.Spec.Containers[*].Image+InitContainers[*].Image"
	osSignerName          = "v1.Pod.Spec.OS"
	hostProcessSignerName = "v1.Pod.Spec.SecurityContext.WindowsOptions.HostProcess"
)

// SignPod lets pods with equal signatures share one scheduling result
// (opportunistic batching): what WindowsAware decides follows from the
// images, the OS, HostProcess, and the node selector and affinity it checks
// for conflicts.
func (pl *WindowsAware) SignPod(_ context.Context, pod *v1.Pod) ([]fwk.SignFragment, *fwk.Status) {
	affinity, err := fwk.NodeAffinitySigner(pod)
	if err != nil {
		return nil, fwk.AsStatus(err)
	}
	images := podneeds.ImageRefs(pod)
	slices.Sort(images)
	var os v1.OSName
	if pod.Spec.OS != nil {
		os = pod.Spec.OS.Name
	}
	return []fwk.SignFragment{
		{Key: imagesSignerName, Value: slices.Compact(images)},
		{Key: osSignerName, Value: os},
		{Key: hostProcessSignerName, Value: podneeds.IsHostProcess(pod)},
		{Key: fwk.NodeAffinitySignerName, Value: affinity},
		{Key: fwk.NodeSelectorSignerName, Value: pod.Spec.NodeSelector},
	}, nil
}
