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

package inventory

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/windows-aware/windows-aware/pkg/wellknown"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// PoolLabels are the labels that name a node's pool, in the order they are
// read: the autoscalers' first (they name the pool that new nodes come
// from), then the managed clusters'. Each is documented by its owner:
// Karpenter's NodePool, AKS's agent pool, EKS's managed node group,
// eksctl's node group, GKE's node pool.
var PoolLabels = []string{
	wellknown.LabelKarpenterNodePool,
	"kubernetes.azure.com/agentpool",
	"agentpool",
	"eks.amazonaws.com/nodegroup",
	"alpha.eksctl.io/nodegroup-name",
	"cloud.google.com/gke-nodepool",
}

// AKSWindowsSKU is the wellknown.LabelAKSOSSKU value of a Windows Server LTSC
// release's pools, from its release token (ltsc2025: Windows2025); "" for
// a token that names no LTSC release.
func AKSWindowsSKU(token string) string {
	year, _ := windows.LTSCYear(token)
	if year == "" {
		return ""
	}
	return "Windows" + year
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

// readLabels are the labels the decision reads of a node
// (podneeds.HostOf): its OS, the OS label of old nodes, its architecture
// and its Windows build.
var readLabels = []string{v1.LabelOSStable, "beta.kubernetes.io/os", v1.LabelArchStable, v1.LabelWindowsBuild}

// Project is the informer's transform: a node reduced to what the
// inventory reads of it (its name, the labels of readLabels and of the
// first pool label it has, its NoSchedule and NoExecute taints and its
// kernel version, from which a Windows node without a build label is
// read). Anything else passes unchanged, tombstones included, whose node
// was projected when it was stored.
func Project(obj any) (any, error) {
	n, ok := obj.(*v1.Node)
	if !ok {
		return obj, nil
	}
	slim := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.Name, UID: n.UID, ResourceVersion: n.ResourceVersion}}
	for _, l := range readLabels {
		if v, ok := n.Labels[l]; ok {
			setLabel(slim, l, v)
		}
	}
	for _, l := range PoolLabels {
		if v := n.Labels[l]; v != "" {
			setLabel(slim, l, v)
			break
		}
	}
	for _, t := range n.Spec.Taints {
		if t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute {
			slim.Spec.Taints = append(slim.Spec.Taints, v1.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect})
		}
	}
	slim.Status.NodeInfo.KernelVersion = n.Status.NodeInfo.KernelVersion
	return slim, nil
}

func setLabel(n *v1.Node, key, value string) {
	if n.Labels == nil {
		n.Labels = make(map[string]string, len(readLabels)+1)
	}
	n.Labels[key] = value
}

var _ cache.TransformFunc = Project
