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
	"cmp"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// Class is the nodes of one pool, platform and set of taints: they get one
// verdict for any pod.
type Class struct {
	Pool     string
	Platform podneeds.NodePlatform
	// Taints are the NoSchedule and NoExecute taints of the class's nodes.
	Taints []v1.Taint
	// Nodes counts the class's nodes.
	Nodes int
	// host is what the decision reads of the class, worked out once.
	host windows.Host
	// node stands in for the class's nodes where podneeds reads a Node
	// (taints): its labels and taints are the class's, and nothing else
	// is set. It is never written once the class is made.
	node *v1.Node
}

// classKey tells classes apart. taints is the class's taints spelled
// key=value:effect, sorted, joined by commas.
type classKey struct {
	pool     string
	platform podneeds.NodePlatform
	taints   string
}

// keyOf reads a node's class key.
func keyOf(node *v1.Node) classKey {
	k := classKey{pool: PoolOf(node), platform: podneeds.PlatformOf(node)}
	if len(node.Spec.Taints) > 0 {
		spelled := make([]string, 0, len(node.Spec.Taints))
		for i := range node.Spec.Taints {
			t := &node.Spec.Taints[i]
			if t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute {
				spelled = append(spelled, t.ToString())
			}
		}
		slices.Sort(spelled)
		k.taints = strings.Join(slices.Compact(spelled), ",")
	}
	return k
}

// newClass makes the class of key from one of its nodes.
func newClass(key classKey, node *v1.Node) *Class {
	c := &Class{Pool: key.pool, Platform: key.platform}
	stand := &v1.Node{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{}}}
	if key.platform.OS != "" {
		stand.Labels[v1.LabelOSStable] = key.platform.OS
	}
	if key.platform.Arch != "" {
		stand.Labels[v1.LabelArchStable] = key.platform.Arch
	}
	if key.platform.Build != "" {
		stand.Labels[v1.LabelWindowsBuild] = key.platform.Build
	}
	for i := range node.Spec.Taints {
		t := node.Spec.Taints[i]
		if (t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute) &&
			!slices.ContainsFunc(c.Taints, func(o v1.Taint) bool { return o.MatchTaint(&t) && o.Value == t.Value }) {
			c.Taints = append(c.Taints, v1.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect})
		}
	}
	stand.Spec.Taints = c.Taints
	c.node = stand
	c.host = podneeds.HostOf(stand)
	return c
}

// compareClasses orders classes by platform (NodePlatform.Compare: Linux
// first, then Windows by build, malformed build labels last), then by
// pool and taints.
func compareClasses(a, b *Class) int {
	return cmp.Or(
		a.Platform.Compare(b.Platform),
		cmp.Compare(a.Pool, b.Pool),
		cmp.Compare(len(a.Taints), len(b.Taints)),
	)
}
