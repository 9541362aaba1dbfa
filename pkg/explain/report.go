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

package explain

import (
	"github.com/windows-aware/windows-aware/pkg/advice"
)

// Report is what explain prints: with -o json, as it is.
type Report struct {
	// Profile is the scheduler profile whose WindowsAware args decided.
	Profile string `json:"profile"`
	// Templates are the pod templates, in input order.
	Templates []TemplateReport `json:"templates"`
	// Conflicts counts the templates no node can run.
	Conflicts int `json:"conflicts"`
	// NoNode counts the templates without a conflict that no node of the
	// given cluster runs.
	NoNode int `json:"noNode,omitempty"`
	// Nodes counts the cluster's nodes, when a cluster was given.
	Nodes int `json:"nodes,omitempty"`
	// Skipped are the objects that have no pod template.
	Skipped []Skipped `json:"skipped,omitempty"`
}

// TemplateReport is what the profile decides about one pod template.
type TemplateReport struct {
	Source    string `json:"source"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// SchedulerName is the template's; PlacedByProfile is false when it
	// names another scheduler than the profile, which then never sees the
	// pod: the report says what the profile would decide.
	SchedulerName   string `json:"schedulerName"`
	PlacedByProfile bool   `json:"placedByProfile"`
	// Published is what publish mode wrote into a live pod, when it did.
	Published *PublishedReport `json:"published,omitempty"`
	// RuntimeClass is the template's RuntimeClass, if it names one.
	RuntimeClass *RuntimeClassReport `json:"runtimeClass,omitempty"`
	// OS is the OS the pod needs: linux, windows, or "" for any.
	OS string `json:"os"`
	// OSSource says where the OS came from: spec, tag, registry,
	// hostProcess, selector or default; OSFrom says it in words.
	OSSource    string `json:"osSource,omitempty"`
	OSFrom      string `json:"osFrom,omitempty"`
	HostProcess bool   `json:"hostProcess,omitempty"`
	// Images are the images that need something of the host.
	Images []ImageReport `json:"images,omitempty"`
	// HostBuilds are the Windows builds, among the releases the profile
	// knows, whose hosts run the pod; AnyBuild is set instead when every
	// Windows host does. PreferredBuild is the build Score ranks first.
	HostBuilds     []string `json:"hostBuilds,omitempty"`
	AnyBuild       bool     `json:"anyBuild,omitempty"`
	PreferredBuild string   `json:"preferredBuild,omitempty"`
	// Conflict is set when no node can run the pod.
	Conflict *ConflictReport `json:"conflict,omitempty"`
	// Nodes are the cluster's nodes, grouped, when a cluster was given.
	Nodes *NodeReport `json:"nodes,omitempty"`
	// Retiring is set when retiring nodes run the pod: whether it stays
	// on them or leaves them for others.
	Retiring *RetiringReport `json:"retiring,omitempty"`
	// Unresolved is why a registry did not answer for an image, when
	// registries were asked: the decision then follows onFailure.
	Unresolved string `json:"unresolved,omitempty"`
	// Fixes say what would let the pod run: for a conflict, or when no
	// node of the cluster runs it.
	Fixes []string `json:"fixes,omitempty"`
	// DaemonSet is, for a DaemonSet read from the cluster, where
	// its controller places its pods (JudgeDaemonSet).
	DaemonSet *DaemonSetReport `json:"daemonSet,omitempty"`
}

// RuntimeClassReport is a template's RuntimeClass.
type RuntimeClassReport struct {
	Name string `json:"name"`
	// Found is set when the RuntimeClass was in the input or the cluster:
	// its nodeSelector and tolerations are merged in, as RuntimeClass
	// admission merges them. Otherwise they are unknown and left out.
	Found        bool              `json:"found"`
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
}

// ImageReport is what one image needs.
type ImageReport struct {
	Image   string `json:"image"`
	Windows bool   `json:"windows"`
	// Builds are the Windows builds the image is made for; none when it
	// runs on any.
	Builds    []string         `json:"builds,omitempty"`
	Platforms []PlatformReport `json:"platforms,omitempty"`
	// Source is where this came from: tag or registry.
	Source string `json:"source"`
}

// PlatformReport is one platform an image comes in.
type PlatformReport struct {
	OS        string `json:"os"`
	Arch      string `json:"arch,omitempty"`
	OSVersion string `json:"osVersion,omitempty"`
}

// Who rejects a conflicting pod.
const (
	RejectedByScheduler = "scheduler"
	RejectedByAdmission = "admission"
)

// ConflictKindRuntimeClass: the pod's nodeSelector and its RuntimeClass's
// disagree, which RuntimeClass admission rejects.
const ConflictKindRuntimeClass = advice.ConflictKindRuntimeClass

// ConflictReport is why no node can run the pod.
type ConflictReport struct {
	// Kind is one of podneeds.ConflictKinds, or runtime_class.
	Kind string `json:"kind"`
	// Message is the scheduler's (or admission's) own.
	Message    string `json:"message"`
	RejectedBy string `json:"rejectedBy"`
}

// NodeReport counts the nodes that fit.
type NodeReport struct {
	Total  int         `json:"total"`
	Fit    int         `json:"fit"`
	Groups []NodeGroup `json:"groups"`
}

// NodeGroup is the nodes of one pool, OS, build and architecture.
type NodeGroup struct {
	// Pool is the node pool, from the label a managed cluster or an
	// autoscaler puts on its nodes (PoolLabels); "" when none is set.
	Pool string `json:"pool,omitempty"`
	OS   string `json:"os"`
	// Build is the nodes' Windows build, or their build label when it
	// does not parse (MalformedBuild).
	Build          string `json:"build,omitempty"`
	MalformedBuild bool   `json:"malformedBuild,omitempty"`
	Arch           string `json:"arch,omitempty"`
	Nodes          int    `json:"nodes"`
	Fit            int    `json:"fit"`
	// FitRetiring counts, of Fit, the nodes labelled retiring
	// (wellknown.LabelRetiring), which Score ranks last.
	FitRetiring int `json:"fitRetiring,omitempty"`
	// Reasons counts the other nodes by the reason the scheduler gives.
	Reasons map[string]int `json:"reasons,omitempty"`
	// Taints are the taints (key=value:effect) that keep the pod off
	// nodes of the group that would otherwise run it.
	Taints []string `json:"taints,omitempty"`
}
