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

package kubectlcmd

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/windows-aware/windows-aware/pkg/explain"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// RefusalReasons are the Event reasons with which the scheduler, publish
// mode and its gate controller tell that a pod was not placed, or not yet.
var RefusalReasons = []string{
	"FailedScheduling",             // the scheduler's own, for every profile
	wellknown.EventAutoscalerBlind, // the scheduler: no pool of the pod's build, and autoscalers cannot see why
	wellknown.EventImagePlatformsUnknown,
	wellknown.EventPlatformConflict,
	wellknown.EventPublishRefused,
}

// Status is what kubectl windows-aware status reports.
type Status struct {
	// Pools are the cluster's nodes by pool and platform.
	Pools []PoolStatus `json:"pools"`
	// Gated are the pods that publish mode holds until their images'
	// platforms are known.
	Gated []GatedPod `json:"gated"`
	// Refusals are the newest Warning Events of RefusalReasons.
	Refusals []Refusal `json:"refusals"`
	// Retiring counts the nodes labelled retiring and the pods on them;
	// nil when no node is.
	Retiring *RetiringStatus `json:"retiring,omitempty"`
	// BuildsChanged are the tags whose Windows builds changed since they
	// were last read, newest first, from the scheduler's recent
	// ImageBuildsChanged Events.
	BuildsChanged []ChangedTag `json:"buildsChanged,omitempty"`
	// DaemonSets are those whose pods go to nodes their images cannot
	// run, or that run Windows pods and reach no Windows node, each with
	// its fix (explain.JudgeDaemonSet).
	DaemonSets []explain.DaemonSetReport `json:"daemonSets"`
	// KubeletRejected are the pods their node's kubelet rejected for want
	// of room (OutOfcpu …) since --since, by the scheduler that bound them.
	KubeletRejected KubeletRejected `json:"kubeletRejected"`
}

// ChangedTag is a tag whose Windows builds changed, as the Event of the
// first pod placed by its new builds tells it.
type ChangedTag struct {
	Image     string      `json:"image"`
	Namespace string      `json:"namespace"`
	Pod       string      `json:"pod"`
	Message   string      `json:"message"`
	Last      metav1.Time `json:"last"`
}

// RetiringStatus is the nodes labelled wellknown.LabelRetiring and the pods
// on them (of the namespace, or of every namespace with -A; DaemonSet pods,
// which go with their nodes, and finished pods aside).
type RetiringStatus struct {
	Nodes int `json:"nodes"`
	Pods  int `json:"pods"`
	// Staying are the pods of Pods that no node but a retiring one runs:
	// draining the pool leaves them Pending.
	Staying []StayingPod `json:"staying"`
}

// StayingPod is a pod on a retiring node that cannot move off the
// retiring nodes.
type StayingPod struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Node      string `json:"node"`
	Why       string `json:"why"`
}

// PoolStatus is the nodes of one pool and platform.
type PoolStatus struct {
	Pool  string `json:"pool,omitempty"`
	OS    string `json:"os"`
	Build string `json:"build,omitempty"`
	// Release names the build (ltsc2022).
	Release string   `json:"release,omitempty"`
	Arch    string   `json:"arch,omitempty"`
	Nodes   int      `json:"nodes"`
	Ready   int      `json:"ready"`
	Taints  []string `json:"taints,omitempty"`
}

// GatedPod is a pod held by publish mode's scheduling gate.
type GatedPod struct {
	Namespace string      `json:"namespace"`
	Name      string      `json:"name"`
	Since     metav1.Time `json:"since"`
	Images    []string    `json:"images"`
}

// Refusal is one Event that says a pod was not placed.
type Refusal struct {
	Namespace string      `json:"namespace"`
	Pod       string      `json:"pod"`
	Reason    string      `json:"reason"`
	Message   string      `json:"message"`
	Count     int32       `json:"count,omitempty"`
	Last      metav1.Time `json:"last"`
}
