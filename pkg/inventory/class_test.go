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
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/oracle"
)

// TestClassOrder: the snapshot's classes in explain's order: Linux first,
// then Windows by build (the number, not the string: 10.0.9600 before
// 10.0.17763), malformed build labels last; then by architecture, pool,
// and the fewer taints first.
func TestClassOrder(t *testing.T) {
	arm := func(n *v1.Node) *v1.Node { n.Labels[v1.LabelArchStable] = "arm64"; return n }
	gpu := v1.Taint{Key: "gpu", Value: "true", Effect: v1.TaintEffectNoSchedule}
	inv := New()
	for _, n := range []*v1.Node{
		node("m1", "typo", "windows", "abc"),
		node("m2", "typo", "windows", "2022"),
		node("w3", "win22", "windows", oracle.Build2022, fixture.WindowsTaint, gpu),
		node("w2", "win22", "windows", oracle.Build2022, fixture.WindowsTaint),
		node("w1", "b22", "windows", oracle.Build2022, fixture.WindowsTaint),
		node("w0", "old", "windows", "10.0.9600"),
		node("w9", "win19", "windows", oracle.Build2019),
		arm(node("l2", "arm", "linux", "")),
		node("l1", "zz", "linux", ""),
	} {
		inv.SetNode(n)
	}
	var got []string
	for _, c := range inv.Snapshot().Classes {
		got = append(got, fmt.Sprintf("%s %s %s %s malformed=%v taints=%d", c.Pool, c.Platform.OS, c.Platform.Build, c.Platform.Arch, c.Platform.MalformedBuild, len(c.Taints)))
	}
	want := []string{
		"zz linux  amd64 malformed=false taints=0",
		"arm linux  arm64 malformed=false taints=0",
		"old windows 10.0.9600 amd64 malformed=false taints=0",
		"win19 windows 10.0.17763 amd64 malformed=false taints=0",
		"b22 windows 10.0.20348 amd64 malformed=false taints=1",
		"win22 windows 10.0.20348 amd64 malformed=false taints=1",
		"win22 windows 10.0.20348 amd64 malformed=false taints=2",
		"typo windows abc amd64 malformed=true taints=0",
		"typo windows 2022 amd64 malformed=true taints=0",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("classes (-want +got):\n%s", diff)
	}
}

// TestClassTaints: a class keeps its nodes' NoSchedule and NoExecute
// taints, each once and without the time a NoExecute taint was added;
// nodes whose taints differ only in order or in a PreferNoSchedule taint
// share a class.
func TestClassTaints(t *testing.T) {
	added := metav1.NewTime(time.Unix(1700000000, 0))
	drain := v1.Taint{Key: "drain", Value: "soon", Effect: v1.TaintEffectNoExecute, TimeAdded: &added}
	soft := v1.Taint{Key: "soft", Effect: v1.TaintEffectPreferNoSchedule}
	inv := New()
	inv.SetNode(node("w1", "win22", "windows", oracle.Build2022, fixture.WindowsTaint, drain, fixture.WindowsTaint))
	inv.SetNode(node("w2", "win22", "windows", oracle.Build2022, drain, soft, fixture.WindowsTaint))
	s := inv.Snapshot()
	if len(s.Classes) != 1 {
		t.Fatalf("classes %q, want one", describe(s))
	}
	c := s.Classes[0]
	want := []v1.Taint{fixture.WindowsTaint, {Key: "drain", Value: "soon", Effect: v1.TaintEffectNoExecute}}
	if diff := cmp.Diff(want, c.Taints); diff != "" {
		t.Errorf("taints (-want +got):\n%s", diff)
	}
	if c.Nodes != 2 || c.Pool != "win22" || PoolName(c) != "pool win22" {
		t.Errorf("class %s of %d nodes, want pool win22 of 2", PoolName(c), c.Nodes)
	}
	if !slices.Equal(c.node.Spec.Taints, c.Taints) {
		t.Errorf("the class's stand-in node has taints %v, want the class's", c.node.Spec.Taints)
	}
}
