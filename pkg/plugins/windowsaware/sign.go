package windowsaware

import (
	"context"
	"slices"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
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
	images := podImages(pod)
	slices.Sort(images)
	var os v1.OSName
	if pod.Spec.OS != nil {
		os = pod.Spec.OS.Name
	}
	return []fwk.SignFragment{
		{Key: imagesSignerName, Value: slices.Compact(images)},
		{Key: osSignerName, Value: os},
		{Key: hostProcessSignerName, Value: isHostProcess(pod)},
		{Key: fwk.NodeAffinitySignerName, Value: affinity},
		{Key: fwk.NodeSelectorSignerName, Value: pod.Spec.NodeSelector},
	}, nil
}
