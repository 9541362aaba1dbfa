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

package wellknown

// The labels the project reads and writes on pods, namespaces and nodes.
const (
	// LabelOptIn opts pods in and out of the profile without editing them.
	// On a namespace, "true" makes every pod created there that names no
	// scheduler of its own (none, or default-scheduler) the profile's, so
	// that workloads whose templates cannot be edited (a third-party
	// chart's) are placed by it too. On a pod, "false" keeps the scheduler
	// it names, in such a namespace.
	LabelOptIn = "windows-aware.x-k8s.io/opt-in"

	// LabelPublish opts a pod out of publishing with the value "false".
	LabelPublish = "windows-aware.x-k8s.io/publish"

	// LabelGated marks, with the value "true", a pod that carries
	// GatePlatform, so that the controller that removes the gate watches
	// those pods alone (a label selector) and not every pod of the
	// cluster; a gated pod without it waits for that controller's
	// periodic list of every pod. It is removed with the gate.
	LabelGated = "windows-aware.x-k8s.io/gated"

	// LabelEnforce, set to "true" on a namespace, turns the warnings about
	// the pods and workloads created there into a refusal (the warnings
	// webhook's enforcing entry selects such namespaces). Elsewhere the
	// warnings never refuse anything.
	LabelEnforce = "windows-aware.x-k8s.io/enforce"

	// LabelRetiring marks a node an administrator is taking out of
	// service, such as the nodes of a Windows Server pool being replaced
	// by a newer build. It steers and never filters: a pod that some other
	// node could run prefers that node, and a pod only retiring nodes run
	// still lands on one.
	LabelRetiring = "windows-aware.x-k8s.io/retiring"

	// RetiringValue is the value of LabelRetiring that marks a node; any
	// other value, like no label, leaves the node as it is.
	RetiringValue = "true"
)

// The labels of others that the project reads, and writes in the fixes it
// prints.
const (
	// LabelKarpenterNodePool names the Karpenter NodePool a node came from.
	LabelKarpenterNodePool = "karpenter.sh/nodepool"

	// LabelAKSOSSKU is the OS SKU of an AKS pool's nodes: Ubuntu,
	// AzureLinux, Windows2019, Windows2022, Windows2025. AKS's OS move
	// rewrites it, and its docs tell users to select on it during the move.
	LabelAKSOSSKU = "kubernetes.azure.com/os-sku"
)
