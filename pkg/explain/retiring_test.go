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
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/pkg/schedprofile"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

func retiringNode(n *v1.Node) *v1.Node {
	n.Labels[wellknown.LabelRetiring] = wellknown.RetiringValue
	return n
}

// TestExplainRetiring: on a cluster whose 2019 and 2022 pools are retiring,
// explain says which pods stay on them (only their build runs them) and
// which leave them.
func TestExplainRetiring(t *testing.T) {
	profile, err := schedprofile.Load(shippedConfig, "")
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewExplainer(t.Context(), profile)
	if err != nil {
		t.Fatal(err)
	}
	osTaint := v1.Taint{Key: "os", Value: "windows", Effect: v1.TaintEffectNoSchedule}
	e.Nodes = []*v1.Node{
		node("l1", "linux", ""),
		retiringNode(node("w2019a", "windows", "10.0.17763", osTaint)),
		retiringNode(node("w2019b", "windows", "10.0.17763", osTaint)),
		retiringNode(node("w2022", "windows", "10.0.20348", osTaint)),
		node("w2025", "windows", "10.0.26100", osTaint),
	}
	tests := []struct {
		name      string
		image     string
		want      *RetiringReport
		wantWords string // in the text output
	}{
		{name: "ltsc2019 stays", image: "mcr.microsoft.com/windows/servercore:ltsc2019",
			want:      &RetiringReport{Fit: 2, Others: 0, Stays: true, Builds: []string{"10.0.17763"}},
			wantWords: "stays on the 2 retiring node(s) that run it: only retiring nodes run it: every node of build 10.0.17763 (ltsc2019)"},
		{name: "ltsc2022 leaves for 2025", image: "mcr.microsoft.com/windows/nanoserver:ltsc2022",
			want:      &RetiringReport{Fit: 1, Others: 1, Builds: []string{"10.0.20348"}},
			wantWords: "1 retiring node(s) run it too; Score prefers the 1 that are not retiring"},
		{name: "ltsc2025: no retiring node runs it", image: "mcr.microsoft.com/windows/server:ltsc2025"},
		{name: "linux", image: "nginx:1.27"},
	}
	groups := GroupNodes(e.Nodes)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := fixture.Pod("p", profile.Name, tt.image)
			pod.Namespace = "default"
			r, err := e.Explain(t.Context(), []Template{{Source: "cluster", Kind: "Pod", Namespace: "default", Name: "p", Pod: pod, Admitted: true}})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, r.Templates[0].Retiring); diff != "" {
				t.Errorf("Retiring (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, e.StaysOnRetiring(t.Context(), pod, groups)); diff != "" {
				t.Errorf("StaysOnRetiring (-want +got):\n%s", diff)
			}
			var out bytes.Buffer
			if err := WriteText(&out, r, e.Decider.Catalog()); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(out.String(), "retiring "); got != (tt.want != nil) {
				t.Errorf("text has a retiring line = %v, want %v:\n%s", got, tt.want != nil, out.String())
			}
			if !strings.Contains(out.String(), tt.wantWords) {
				t.Errorf("text lacks %q:\n%s", tt.wantWords, out.String())
			}
		})
	}
}
