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

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/pkg/schedprofile"
)

// TestExplainDaemonSet: a DaemonSet read from the cluster gets the
// detail of where its controller places it under its block; one read
// from a file does not, its nodes being another cluster's.
func TestExplainDaemonSet(t *testing.T) {
	profile, err := schedprofile.Load("", "")
	if err != nil {
		t.Fatal(err)
	}
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "monitoring", Name: "node-exporter"}}
	ds.Spec.Template.Spec.Containers = []v1.Container{{Name: "c", Image: "quay.io/prometheus/node-exporter:v1.8.2"}}
	ds.Spec.Template.Spec.Tolerations = []v1.Toleration{{Operator: v1.TolerationOpExists}}
	nodes := []*v1.Node{fixture.Node("l1", fixture.NodeOptions{}),
		fixture.Node("w1", fixture.NodeOptions{OS: "windows", Build: "10.0.20348", Taints: []v1.Taint{fixture.WindowsTaint}})}
	tests := []struct {
		source     string
		wantDetail bool
	}{
		{source: LiveSource, wantDetail: true},
		{source: "ds.yaml", wantDetail: false},
	}
	for _, tt := range tests {
		t.Run(tt.source, func(t *testing.T) {
			e, err := NewExplainer(t.Context(), profile)
			if err != nil {
				t.Fatal(err)
			}
			e.Nodes = nodes
			templates, _, _ := Inputs([]Object{{Source: tt.source, Object: ds, Live: tt.source == LiveSource}})
			r, err := e.Explain(t.Context(), templates)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Templates[0].DaemonSet != nil; got != tt.wantDetail {
				t.Fatalf("daemonSet detail %v, want %v", got, tt.wantDetail)
			}
			var out bytes.Buffer
			if err := WriteText(&out, r, e.Releases); err != nil {
				t.Fatal(err)
			}
			fix := `kubectl -n monitoring patch daemonset node-exporter --type merge -p '{"spec":{"template":{"spec":{"nodeSelector":{"kubernetes.io/os":"linux"}}}}}'`
			for _, want := range []string{"runs a pod on 2 node(s), 1 of them wrong", "wrong: windows 10.0.20348 ×1", fix} {
				if got := strings.Contains(out.String(), want); got != tt.wantDetail {
					t.Errorf("text has %q: %v, want %v:\n%s", want, got, tt.wantDetail, out.String())
				}
			}
		})
	}
}

// TestDaemonSetFixToleratesOSTaintsOnly: the printed fix of a Windows
// DaemonSet that reaches no Windows node tolerates the profile's OS taint
// alone; another taint on those nodes (a tenant's) is named in words,
// never waved through by a patch printed to be copied whole.
func TestDaemonSetFixToleratesOSTaintsOnly(t *testing.T) {
	profile, err := schedprofile.Load("", "")
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewExplainer(t.Context(), profile)
	if err != nil {
		t.Fatal(err)
	}
	tenant := v1.Taint{Key: "tenant", Value: "payments", Effect: v1.TaintEffectNoSchedule}
	e.Nodes = []*v1.Node{fixture.Node("l1", fixture.NodeOptions{}),
		fixture.Node("w1", fixture.NodeOptions{OS: "windows", Build: "10.0.20348", Taints: []v1.Taint{fixture.WindowsTaint, tenant}})}
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "monitoring", Name: "win-agent"}}
	ds.Spec.Template.Spec.Containers = []v1.Container{{Name: "c", Image: "mcr.microsoft.com/windows/nanoserver:ltsc2022"}}
	ds.Spec.Template.Spec.NodeSelector = map[string]string{v1.LabelOSStable: "windows"}
	templates, _, _ := Inputs([]Object{{Source: LiveSource, Object: ds, Live: true}})
	r, err := e.JudgeDaemonSet(t.Context(), templates[0])
	if err != nil {
		t.Fatal(err)
	}
	wantPatch := `{"spec":{"template":{"spec":{"tolerations":[{"key":"os","operator":"Equal","value":"windows","effect":"NoSchedule"}]}}}}`
	if r.Patch != wantPatch {
		t.Errorf("patch %s, want %s", r.Patch, wantPatch)
	}
	if !strings.Contains(r.Why, "tenant=payments:NoSchedule is not the OS's") || strings.Contains(r.Patch, "tenant") {
		t.Errorf("why %q: want the tenant's taint named in words, and no toleration of it", r.Why)
	}
}
