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

package kubectlcmd

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/windows-aware/windows-aware/internal/fixture"
)

// TestStatusDaemonSets: status reports the DaemonSets of the namespace
// whose controller puts pods on nodes their images cannot run, and the
// Windows ones that reach no Windows node, with the patch that fixes
// each; once the patch is applied, the DaemonSet is no longer reported.
func TestStatusDaemonSets(t *testing.T) {
	winTaint := v1.Taint{Key: "os", Value: "windows", Effect: v1.TaintEffectNoSchedule}
	nodes := []runtime.Object{
		fixture.Node("l1", fixture.NodeOptions{}),
		fixture.Node("l2", fixture.NodeOptions{}),
		fixture.Node("w1", fixture.NodeOptions{OS: "windows", Build: "10.0.20348", Taints: []v1.Taint{winTaint}}),
	}
	ds := func(ns, name, image string, mutate func(*v1.PodSpec)) *appsv1.DaemonSet {
		d := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
		d.Spec.Template.Spec.Containers = []v1.Container{{Name: "c", Image: image}}
		if mutate != nil {
			mutate(&d.Spec.Template.Spec)
		}
		return d
	}
	onWindows := func(s *v1.PodSpec) { s.NodeSelector = map[string]string{v1.LabelOSStable: "windows"} }
	tolerating := func(s *v1.PodSpec) { onWindows(s); s.Tolerations = []v1.Toleration{fixture.WindowsToleration} }
	rc := &nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "windows-2022"}, Handler: "runhcs-wcow-process",
		Scheduling: &nodev1.Scheduling{NodeSelector: map[string]string{v1.LabelOSStable: "windows", v1.LabelWindowsBuild: "10.0.20348"},
			Tolerations: []v1.Toleration{fixture.WindowsToleration}}}
	const nano = "mcr.microsoft.com/windows/nanoserver:ltsc2022"
	type want struct {
		Nodes, Wrong  int
		NoWindowsNode bool
		Why, Patch    string
	}
	tests := []struct {
		name string
		ds   *appsv1.DaemonSet
		want *want // nil: not reported
	}{
		{
			name: "linux daemon tolerating every taint",
			ds:   ds("web", "node-exporter", "quay.io/prometheus/node-exporter:v1.8.2", func(s *v1.PodSpec) { s.Tolerations = []v1.Toleration{{Operator: v1.TolerationOpExists}} }),
			want: &want{Nodes: 3, Wrong: 1, Why: "its pods go to 1 node(s) whose OS or build its images cannot run (windows 10.0.20348 ×1)",
				Patch: `{"spec":{"template":{"spec":{"nodeSelector":{"kubernetes.io/os":"linux"}}}}}`},
		},
		{
			name: "linux daemon without selectors stays off the tainted Windows nodes",
			ds:   ds("web", "fluent-bit", "cr.fluentbit.io/fluent/fluent-bit:3.0", nil),
		},
		{
			name: "windows agent missing the taint's toleration",
			ds:   ds("web", "win-agent", nano, onWindows),
			want: &want{Nodes: 0, NoWindowsNode: true, Why: "it reaches no Windows node: it does not tolerate their taint(s) os=windows:NoSchedule",
				Patch: `{"spec":{"template":{"spec":{"tolerations":[{"key":"os","operator":"Equal","value":"windows","effect":"NoSchedule"}]}}}}`},
		},
		{
			name: "windows agent relying on its RuntimeClass",
			ds:   ds("web", "rc-agent", nano, func(s *v1.PodSpec) { s.RuntimeClassName = &rc.Name }),
			want: &want{Nodes: 2, Wrong: 2, NoWindowsNode: true,
				Why: "its pods go to 2 node(s) whose OS or build its images cannot run (linux ×2); " +
					"RuntimeClass windows-2022's nodeSelector is not used by the DaemonSet controller (kubernetes#111590): its pods there stay Pending; " +
					"it reaches no Windows node: it does not tolerate their taint(s) os=windows:NoSchedule; " +
					"RuntimeClass windows-2022's tolerations do not count, the DaemonSet controller ignores a RuntimeClass (kubernetes#111590)",
				Patch: `{"spec":{"template":{"spec":{"nodeSelector":{"kubernetes.io/os":"windows","node.kubernetes.io/windows-build":"10.0.20348"},"tolerations":[{"key":"os","operator":"Equal","value":"windows","effect":"NoSchedule"}]}}}}`},
		},
		{
			name: "windows agent of a build no node runs",
			ds:   ds("web", "agent-2019", "mcr.microsoft.com/windows/servercore:ltsc2019", tolerating),
			want: &want{Nodes: 1, Wrong: 1, NoWindowsNode: true,
				Why: "its pods go to 1 node(s) whose OS or build its images cannot run (windows 10.0.20348 ×1); " +
					"it reaches no Windows node: no Windows node is of a build its images run (10.0.17763 (ltsc2019))"},
		},
		{
			name: "windows agent with its selector and toleration",
			ds:   ds("web", "good-agent", nano, tolerating),
		},
		{
			name: "another namespace is not read",
			ds:   ds("other", "node-exporter", "quay.io/prometheus/node-exporter:v1.8.2", func(s *v1.PodSpec) { s.Tolerations = []v1.Toleration{{Operator: v1.TolerationOpExists}} }),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := fake.NewClientset(append([]runtime.Object{tt.ds, rc}, nodes...)...)
			s, err := readStatus(t.Context(), client, "web", time.Now().Add(-time.Hour), 20)
			if err != nil {
				t.Fatal(err)
			}
			var got *want
			if len(s.DaemonSets) > 1 {
				t.Fatalf("daemonsets %+v, want at most one", s.DaemonSets)
			}
			if len(s.DaemonSets) == 1 {
				d := s.DaemonSets[0]
				got = &want{Nodes: d.Nodes, Wrong: d.Wrong, NoWindowsNode: d.NoWindowsNode, Why: d.Why, Patch: d.Patch}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("daemonset (-want +got):\n%s", diff)
			}
			var out bytes.Buffer
			if err := writeStatus(&out, s, time.Now()); err != nil {
				t.Fatal(err)
			}
			if got == nil {
				if !strings.Contains(out.String(), "No DaemonSet goes to a node") {
					t.Errorf("text lacks the all-clear:\n%s", out.String())
				}
				return
			}
			if got.Patch == "" {
				return
			}
			fix := "fix web/" + tt.ds.Name + ": kubectl -n web patch daemonset " + tt.ds.Name + " --type merge -p '" + got.Patch + "'"
			if !strings.Contains(out.String(), fix) {
				t.Errorf("text lacks %q:\n%s", fix, out.String())
			}
			if _, err := client.AppsV1().DaemonSets("web").Patch(t.Context(), tt.ds.Name, types.MergePatchType, []byte(got.Patch), metav1.PatchOptions{}); err != nil {
				t.Fatal(err)
			}
			if s, err = readStatus(t.Context(), client, "web", time.Now().Add(-time.Hour), 20); err != nil {
				t.Fatal(err)
			}
			if len(s.DaemonSets) != 0 {
				t.Errorf("after the patch: %+v, want none", s.DaemonSets)
			}
		})
	}
}
