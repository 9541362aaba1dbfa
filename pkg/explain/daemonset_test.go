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
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
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
			if err := WriteText(&out, r, e.Decider.Catalog()); err != nil {
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

// TestJudgeDaemonSet: where the DaemonSet controller puts a template's
// pods (its own nodeSelector, affinity and tolerations, never its
// RuntimeClass's) against the nodes its images run on, the words that say
// what is wrong, and the patch, or the words, that fix it.
func TestJudgeDaemonSet(t *testing.T) {
	profile, err := schedprofile.Load("", "")
	if err != nil {
		t.Fatal(err)
	}
	const (
		nano22     = "mcr.microsoft.com/windows/nanoserver:ltsc2022"
		servercore = "mcr.microsoft.com/windows/servercore:ltsc2019"
		exporter   = "quay.io/prometheus/node-exporter:v1.8.2"
	)
	linux := func(name string) *v1.Node { return fixture.LinuxNode(name) }
	win := func(name, build string) *v1.Node { return fixture.WindowsNode(name, build) }
	onWindows := func(s *v1.PodSpec) { s.NodeSelector = map[string]string{v1.LabelOSStable: "windows"} }
	tolerating := func(s *v1.PodSpec) { onWindows(s); s.Tolerations = []v1.Toleration{fixture.WindowsToleration} }
	everywhere := func(s *v1.PodSpec) { s.Tolerations = []v1.Toleration{{Operator: v1.TolerationOpExists}} }
	rc := &nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "windows-2022"}, Handler: "runhcs-wcow-process",
		Scheduling: &nodev1.Scheduling{NodeSelector: map[string]string{v1.LabelOSStable: "windows", v1.LabelWindowsBuild: "10.0.20348"},
			Tolerations: []v1.Toleration{fixture.WindowsToleration}}}
	withRC := func(s *v1.PodSpec) { s.RuntimeClassName = &rc.Name }
	patch := func(spec string) string { return `{"spec":{"template":{"spec":` + spec + `}}}` }
	fix := func(name, patch string) string {
		return "kubectl -n monitoring patch daemonset " + name + " --type merge -p '" + patch + "'"
	}
	const osToleration = `"tolerations":[{"key":"os","operator":"Equal","value":"windows","effect":"NoSchedule"}]`
	tests := []struct {
		name    string
		nodes   []*v1.Node
		image   string
		spec    func(*v1.PodSpec)
		classes map[string]*nodev1.RuntimeClass // nil: no RuntimeClass lookup
		want    DaemonSetReport
	}{
		{
			name:  "a Linux daemon that tolerates everything goes to the Windows nodes too: wrong OS, pinned to linux",
			nodes: []*v1.Node{linux("l1"), linux("l2"), win("w1", "10.0.20348")}, image: exporter, spec: everywhere,
			want: DaemonSetReport{Name: "ds", OS: "linux", Nodes: 3, Wrong: 1, WrongOn: []string{"windows 10.0.20348 ×1"},
				Why:   "its pods go to 1 node(s) whose OS or build its images cannot run (windows 10.0.20348 ×1)",
				Patch: patch(`{"nodeSelector":{"kubernetes.io/os":"linux"}}`)},
		},
		{
			name:  "a Linux daemon without tolerations stays off the tainted Windows nodes",
			nodes: []*v1.Node{linux("l1"), win("w1", "10.0.20348")}, image: exporter,
			want: DaemonSetReport{Name: "ds", OS: "linux", Nodes: 1},
		},
		{
			name:  "an ltsc2022 daemon on the 2019 nodes too: wrong build, pinned to the one build that runs it",
			nodes: []*v1.Node{win("w19", "10.0.17763"), win("w22a", "10.0.20348"), win("w22b", "10.0.20348")}, image: nano22, spec: tolerating,
			want: DaemonSetReport{Name: "ds", OS: "windows", Images: []string{nano22}, Nodes: 3, Wrong: 1, WrongOn: []string{"windows 10.0.17763 ×1"},
				Why:   "its pods go to 1 node(s) whose OS or build its images cannot run (windows 10.0.17763 ×1)",
				Patch: patch(`{"nodeSelector":{"node.kubernetes.io/windows-build":"10.0.20348"}}`)},
		},
		{
			name:  "wrong build where two builds run it: an affinity on both",
			nodes: []*v1.Node{win("w19", "10.0.17763"), win("w22", "10.0.20348"), win("w25", "10.0.26100")}, image: nano22, spec: tolerating,
			want: DaemonSetReport{Name: "ds", OS: "windows", Images: []string{nano22}, Nodes: 3, Wrong: 1, WrongOn: []string{"windows 10.0.17763 ×1"},
				Why: "its pods go to 1 node(s) whose OS or build its images cannot run (windows 10.0.17763 ×1)",
				Patch: patch(`{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":` +
					`{"nodeSelectorTerms":[{"matchExpressions":[{"key":"node.kubernetes.io/windows-build","operator":"In","values":["10.0.20348","10.0.26100"]}]}]}}}}`)},
		},
		{
			name:  "wrong build where two builds run it and the template has an affinity to lose: the fix in words",
			nodes: []*v1.Node{win("w19", "10.0.17763"), win("w22", "10.0.20348"), win("w25", "10.0.26100")}, image: nano22,
			spec: func(s *v1.PodSpec) {
				tolerating(s)
				s.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
					NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{
						{Key: v1.LabelArchStable, Operator: v1.NodeSelectorOpIn, Values: []string{"amd64"}}}}}}}}
			},
			want: DaemonSetReport{Name: "ds", OS: "windows", Images: []string{nano22}, Nodes: 3, Wrong: 1, WrongOn: []string{"windows 10.0.17763 ×1"},
				Why: "its pods go to 1 node(s) whose OS or build its images cannot run (windows 10.0.17763 ×1)",
				Fix: "no patch of the DaemonSet fixes it: its images run on some of these nodes only: give it a node affinity on node.kubernetes.io/windows-build of the builds they run"},
		},
		{
			name:  "a Windows daemon missing the taint's toleration reaches no Windows node: the OS taint tolerated",
			nodes: []*v1.Node{linux("l1"), win("w1", "10.0.20348")}, image: nano22, spec: onWindows,
			want: DaemonSetReport{Name: "ds", OS: "windows", Images: []string{nano22}, NoWindowsNode: true,
				Why:   "it reaches no Windows node: it does not tolerate their taint(s) os=windows:NoSchedule",
				Patch: patch(`{` + osToleration + `}`)},
		},
		{
			name:  "taint-missed Windows nodes of two builds: tolerated, and pinned to the build that runs it",
			nodes: []*v1.Node{win("w19", "10.0.17763"), win("w22", "10.0.20348")}, image: nano22, spec: onWindows,
			want: DaemonSetReport{Name: "ds", OS: "windows", Images: []string{nano22}, NoWindowsNode: true,
				Why:   "it reaches no Windows node: it does not tolerate their taint(s) os=windows:NoSchedule",
				Patch: patch(`{"nodeSelector":{"node.kubernetes.io/windows-build":"10.0.20348"},` + osToleration + `}`)},
		},
		{
			name:  "taint-missed without an OS selector: the toleration comes with one, lest it reach the Linux nodes",
			nodes: []*v1.Node{win("w1", "10.0.20348")}, image: nano22,
			want: DaemonSetReport{Name: "ds", OS: "windows", Images: []string{nano22}, NoWindowsNode: true,
				Why:   "it reaches no Windows node: it does not tolerate their taint(s) os=windows:NoSchedule",
				Patch: patch(`{"nodeSelector":{"kubernetes.io/os":"windows"},` + osToleration + `}`)},
		},
		{
			name:  "its RuntimeClass's nodeSelector and tolerations are ignored: Linux nodes wrong, Windows nodes missed",
			nodes: []*v1.Node{linux("l1"), linux("l2"), win("w1", "10.0.20348")}, image: nano22, spec: withRC,
			classes: map[string]*nodev1.RuntimeClass{rc.Name: rc},
			want: DaemonSetReport{Name: "ds", OS: "windows", Images: []string{nano22}, RuntimeClass: "windows-2022", Nodes: 2, Wrong: 2,
				WrongOn: []string{"linux ×2"}, NoWindowsNode: true,
				Why: "its pods go to 2 node(s) whose OS or build its images cannot run (linux ×2); " +
					"RuntimeClass windows-2022's nodeSelector is not used by the DaemonSet controller (kubernetes#111590): its pods there stay Pending; " +
					"it reaches no Windows node: it does not tolerate their taint(s) os=windows:NoSchedule; " +
					"RuntimeClass windows-2022's tolerations do not count, the DaemonSet controller ignores a RuntimeClass (kubernetes#111590)",
				Patch: patch(`{"nodeSelector":{"kubernetes.io/os":"windows","node.kubernetes.io/windows-build":"10.0.20348"},` + osToleration + `}`)},
		},
		{
			name:  "a RuntimeClass its own nodeSelector contradicts: admission rejects its pods",
			nodes: []*v1.Node{linux("l1"), win("w1", "10.0.20348")}, image: nano22,
			spec:    func(s *v1.PodSpec) { withRC(s); s.NodeSelector = map[string]string{v1.LabelOSStable: "linux"} },
			classes: map[string]*nodev1.RuntimeClass{rc.Name: rc},
			want: DaemonSetReport{Name: "ds", RuntimeClass: "windows-2022",
				Why: "RuntimeClass admission rejects its pods: conflict: runtimeClass.scheduling.nodeSelector[kubernetes.io/os] = windows; pod.spec.nodeSelector[kubernetes.io/os] = linux"},
		},
		{
			name:  "a Windows daemon of a build no node runs: no patch fixes it",
			nodes: []*v1.Node{linux("l1"), win("w1", "10.0.20348")}, image: servercore, spec: tolerating,
			want: DaemonSetReport{Name: "ds", OS: "windows", Images: []string{servercore}, Nodes: 1, Wrong: 1, WrongOn: []string{"windows 10.0.20348 ×1"}, NoWindowsNode: true,
				Why: "its pods go to 1 node(s) whose OS or build its images cannot run (windows 10.0.20348 ×1); " +
					"it reaches no Windows node: no Windows node is of a build its images run (10.0.17763 (ltsc2019))",
				Fix: "no patch of the DaemonSet fixes it: retag its image for a build the cluster's Windows nodes run, or add a pool of the build it needs"},
		},
		{
			name:  "a Windows daemon whose own selector excludes every Windows node: the fix in words",
			nodes: []*v1.Node{linux("l1"), win("w1", "10.0.20348")}, image: nano22,
			spec: func(s *v1.PodSpec) { tolerating(s); s.NodeSelector["pool"] = "gpu" },
			want: DaemonSetReport{Name: "ds", OS: "windows", Images: []string{nano22}, NoWindowsNode: true,
				Why: "it reaches no Windows node: its own nodeSelector or affinity excludes every Windows node of a build it runs",
				Fix: "no patch of the DaemonSet fixes it: change its nodeSelector or affinity to admit the Windows nodes of a build it runs"},
		},
		{
			name:  "no Windows node, a Windows daemon pinned to windows: nowhere to go, nothing wrong",
			nodes: []*v1.Node{linux("l1"), linux("l2")}, image: nano22, spec: tolerating,
			want: DaemonSetReport{Name: "ds", OS: "windows", Images: []string{nano22}},
		},
		{
			name:  "no Windows node, a Windows daemon without selector: every Linux node wrong",
			nodes: []*v1.Node{linux("l1"), linux("l2")}, image: nano22,
			want: DaemonSetReport{Name: "ds", OS: "windows", Images: []string{nano22}, Nodes: 2, Wrong: 2, WrongOn: []string{"linux ×2"},
				Why:   "its pods go to 2 node(s) whose OS or build its images cannot run (linux ×2)",
				Patch: patch(`{"nodeSelector":{"kubernetes.io/os":"windows"}}`)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := NewExplainer(t.Context(), profile)
			if err != nil {
				t.Fatal(err)
			}
			e.Nodes = tt.nodes
			if tt.classes != nil {
				e.RuntimeClass = RuntimeClasses(tt.classes, nil)
			}
			ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "monitoring", Name: "ds"}}
			ds.Spec.Template.Spec.Containers = []v1.Container{{Name: "c", Image: tt.image}}
			if tt.spec != nil {
				tt.spec(&ds.Spec.Template.Spec)
			}
			templates, _, _ := Inputs([]Object{{Source: LiveSource, Object: ds, Live: true}})
			got, err := e.JudgeDaemonSet(t.Context(), templates[0])
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			want.Namespace = "monitoring"
			if want.Patch != "" {
				want.Fix = fix("ds", want.Patch)
			}
			if diff := cmp.Diff(&want, got); diff != "" {
				t.Errorf("report (-want +got):\n%s", diff)
			}
			if wantFinding := want.Wrong > 0 || want.NoWindowsNode; got.Finding() != wantFinding {
				t.Errorf("Finding() = %v, want %v", got.Finding(), wantFinding)
			}
		})
	}
}
