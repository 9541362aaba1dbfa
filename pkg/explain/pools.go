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

import v1 "k8s.io/api/core/v1"

// PoolLabels are the labels that name a node's pool, in the order they are
// read: the autoscalers' first (they name the pool that new nodes come
// from), then the managed clusters'. Each is documented by its owner:
// Karpenter's NodePool, AKS's agent pool, EKS's managed node group,
// eksctl's node group, GKE's node pool.
var PoolLabels = []string{
	"karpenter.sh/nodepool",
	"kubernetes.azure.com/agentpool",
	"agentpool",
	"eks.amazonaws.com/nodegroup",
	"alpha.eksctl.io/nodegroup-name",
	"cloud.google.com/gke-nodepool",
}

// PoolOf names the node's pool; "" when no PoolLabels label is set.
func PoolOf(node *v1.Node) string {
	for _, l := range PoolLabels {
		if p := node.Labels[l]; p != "" {
			return p
		}
	}
	return ""
}
