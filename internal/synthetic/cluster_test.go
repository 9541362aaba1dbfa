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

package synthetic

import (
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
)

// TestKindsRunWhereTheFactsSay: the oracle gives each kind of the mix the
// pools docs/windows-facts.md implies, and the stock variant's selectors
// pick exactly those pools.
func TestKindsRunWhereTheFactsSay(t *testing.T) {
	want := map[string][]string{
		"linux":       {"linux"},
		"win2019":     {"win2019"},
		"win2022":     {"win2022", "win2025"},
		"win2025":     {"win2025"},
		"multi":       {"win2025"},
		"hostprocess": {"win2019", "win2022", "win2025"},
	}
	nodes := Nodes(10)
	for _, k := range Kinds {
		t.Run(k.Name, func(t *testing.T) {
			var allowed, selected []string
			stock := k.Pod("p", StockSelectors)
			for _, n := range nodes {
				pool := n.Labels[LabelPool]
				if k.Allows(n) && !slices.Contains(allowed, pool) {
					allowed = append(allowed, pool)
				}
				if selects(stock, n) && !slices.Contains(selected, pool) {
					selected = append(selected, pool)
				}
			}
			slices.Sort(allowed)
			slices.Sort(selected)
			if !slices.Equal(allowed, want[k.Name]) {
				t.Errorf("oracle allows %v, want %v", allowed, want[k.Name])
			}
			if !slices.Equal(selected, want[k.Name]) {
				t.Errorf("stock selectors pick %v, want %v", selected, want[k.Name])
			}
		})
	}
}

// selects is a minimal reading of the stock variant's node selector,
// required affinity (In only) and toleration of the Windows taint.
func selects(p *v1.Pod, n *v1.Node) bool {
	for k, v := range p.Spec.NodeSelector {
		if n.Labels[k] != v {
			return false
		}
	}
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, e := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions {
			if !slices.Contains(e.Values, n.Labels[e.Key]) {
				return false
			}
		}
	}
	for _, taint := range n.Spec.Taints {
		if !slices.ContainsFunc(p.Spec.Tolerations, func(tol v1.Toleration) bool {
			return tol.Key == taint.Key && tol.Value == taint.Value && tol.Effect == taint.Effect
		}) {
			return false
		}
	}
	return true
}

func TestVariants(t *testing.T) {
	k, _ := KindByName("win2022")
	tests := []struct {
		variant     Variant
		wantProfile string
		wantExtras  bool
	}{
		{variant: WindowsAware, wantProfile: "windows-aware", wantExtras: false},
		{variant: StockSelectors, wantProfile: "default-scheduler", wantExtras: true},
		{variant: StockPlain, wantProfile: "default-scheduler", wantExtras: false},
	}
	for _, tc := range tests {
		t.Run(string(tc.variant), func(t *testing.T) {
			p := k.Pod("p", tc.variant)
			if p.Spec.SchedulerName != tc.wantProfile {
				t.Errorf("schedulerName %q, want %q", p.Spec.SchedulerName, tc.wantProfile)
			}
			extras := p.Spec.NodeSelector != nil || p.Spec.Affinity != nil || p.Spec.Tolerations != nil
			if extras != tc.wantExtras {
				t.Errorf("selectors/tolerations present %v, want %v", extras, tc.wantExtras)
			}
		})
	}
}
