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

// Verdict is what an upgrade to a build means for a workload.
type Verdict string

// Verdicts.
const (
	// VerdictReady: every image has a variant the target build runs, or
	// the pod is HostProcess, which runs on any build.
	VerdictReady Verdict = "ready"
	// VerdictRebuild: some image has no variant the target build runs.
	VerdictRebuild Verdict = "rebuild"
	// VerdictRetarget: its images run on the target build, but what else
	// ties it to a build (its nodeSelector, required node affinity or
	// RuntimeClass) selects no node once the nodes move: its pods would
	// stay Pending until it is pointed at the new build.
	VerdictRetarget Verdict = "retarget"
	// VerdictNowhere: no node runs it today, before any move: its images
	// need builds no single host runs, or a pin selects no node.
	VerdictNowhere Verdict = "nowhere"
	// VerdictUnknown: some image names no build and no registry told one,
	// a pin the plan cannot read, or the workload could not be read.
	VerdictUnknown Verdict = "unknown"
)

// UpgradePlan is what upgrade-plan prints: with -o json, as it is.
type UpgradePlan struct {
	// Profile is the scheduler profile whose WindowsAware args decided.
	Profile string `json:"profile"`
	// Target is the build the nodes move to; TargetRelease its name.
	Target        string `json:"target"`
	TargetRelease string `json:"targetRelease,omitempty"`
	// Pool is the LABEL=VALUE of the pool planned, "" for every Windows
	// node of a build older than Target.
	Pool string `json:"pool,omitempty"`
	// Moving counts the nodes that move to Target, and From names their
	// builds now.
	Moving int      `json:"movingNodes"`
	From   []string `json:"from"`
	// Nodes counts the cluster's nodes.
	Nodes int `json:"nodes"`
	// Workloads are those that run on Windows nodes or whose template
	// would, in the order they were listed.
	Workloads []WorkloadPlan `json:"workloads"`
	// Blocking are the pods that would block draining the moving nodes:
	// pods of workloads that need a rebuild, and that no node staying at
	// its build runs.
	Blocking []PodPlan `json:"blockingDrain"`
	// Agents are the Windows DaemonSets, and whether each keeps a pod on
	// every node that moves.
	Agents []AgentCoverage `json:"agents"`
	// WhatIf is what changes on the pool when it becomes Target, when a
	// pool was given.
	WhatIf *WhatIf `json:"whatIf,omitempty"`
	// Steer are the commands that steer new pods off the nodes that move
	// while they move (the retiring label).
	Steer   []string       `json:"steer,omitempty"`
	Summary UpgradeSummary `json:"summary"`
}

// WorkloadPlan is the verdict on one workload.
type WorkloadPlan struct {
	Kind      string  `json:"kind"`
	Namespace string  `json:"namespace"`
	Name      string  `json:"name"`
	Verdict   Verdict `json:"verdict"`
	// Source is where a ready verdict came from: tag, registry, or
	// hostProcess; several sources are joined with "+".
	Source string `json:"source,omitempty"`
	// Reason says why the verdict is unknown, retarget or nowhere: the
	// pins, or the conflict that keeps the pod off every node.
	Reason string `json:"reason,omitempty"`
	// Pins are what ties it to a build besides its images and selects no
	// node once the nodes move (retarget), or none today (nowhere).
	Pins []Pin `json:"pins,omitempty"`
	// Fixes are the commands that point the pins at the moved nodes.
	Fixes  []string       `json:"fixes,omitempty"`
	Images []UpgradeImage `json:"images,omitempty"`
	// Pods counts its pods on Windows nodes; MovingPods those on the
	// nodes that move.
	Pods       int `json:"pods"`
	MovingPods int `json:"movingPods"`
}

// UpgradeImage is what one image of a workload has, and whether the
// target build runs it.
type UpgradeImage struct {
	Image   string  `json:"image"`
	Verdict Verdict `json:"verdict"`
	// Builds are the Windows builds the image comes in, as its tag or its
	// registry says; none when it runs on any.
	Builds []string `json:"builds,omitempty"`
	// Source is tag or registry, "" when neither told a build.
	Source string `json:"source,omitempty"`
	// SiblingTag is the tag of the same repository that names the target
	// build, for an image whose tag names another.
	SiblingTag string `json:"siblingTag,omitempty"`
	// Reason says why the verdict is unknown.
	Reason string `json:"reason,omitempty"`
}

// PodPlan names a pod, the node it is on and its workload.
type PodPlan struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Node      string `json:"node,omitempty"`
	Workload  string `json:"workload"`
	// Reason is the scheduler's reason, or the images and builds.
	Reason string `json:"reason,omitempty"`
}

// UpgradeSummary counts the verdicts, for a change request.
type UpgradeSummary struct {
	Ready    int `json:"ready"`
	Rebuild  int `json:"rebuild"`
	Retarget int `json:"retarget"`
	Nowhere  int `json:"nowhere"`
	Unknown  int `json:"unknown"`
	Blocking int `json:"blockingDrain"`
	// AgentsLosing counts the DaemonSets that run a pod on fewer of the
	// moving nodes after the move than before.
	AgentsLosing int                `json:"agentsLosing"`
	Namespaces   []NamespaceSummary `json:"namespaces"`
}

// NamespaceSummary counts the verdicts of one namespace.
type NamespaceSummary struct {
	Namespace string `json:"namespace"`
	Ready     int    `json:"ready"`
	Rebuild   int    `json:"rebuild"`
	Retarget  int    `json:"retarget"`
	Nowhere   int    `json:"nowhere"`
	Unknown   int    `json:"unknown"`
}

// Findings reports whether anything stands in the way of the move: a
// workload that is not ready, or an agent that loses nodes.
func (s *UpgradeSummary) Findings() bool {
	return s.Rebuild+s.Retarget+s.Nowhere+s.Unknown+s.AgentsLosing > 0
}

// AgentCoverage is whether a Windows DaemonSet keeps a pod on every node
// that moves: the nodes where the DaemonSet controller places its pod
// and the pod runs (its images, and its RuntimeClass's nodeSelector,
// which the controller does not read), before and after the move.
type AgentCoverage struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Moving counts the nodes that move; Before and After those of them
	// it runs a pod on.
	Moving int `json:"moving"`
	Before int `json:"before"`
	After  int `json:"after"`
	// Why says what keeps it off the moved nodes, and Fixes how to mend
	// it.
	Why   string   `json:"why,omitempty"`
	Fixes []string `json:"fixes,omitempty"`
}

// Loses reports whether the agent runs on fewer moving nodes after the
// move than before.
func (a *AgentCoverage) Loses() bool { return a.After < a.Before }
