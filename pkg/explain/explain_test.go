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
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/windows-aware/windows-aware/pkg/plugins/windowsaware"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/schedprofile"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

const shippedConfig = "../../manifests/scheduler-config.yaml"

// explainFiles explains manifest files as "scheduler explain -f" does,
// without a cluster unless cluster is given.
func explainFiles(t *testing.T, cluster *Cluster, files ...string) *Report {
	t.Helper()
	profile, err := schedprofile.Load(shippedConfig, "")
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewExplainer(t.Context(), profile)
	if err != nil {
		t.Fatal(err)
	}
	var objects []Object
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		objs, _, err := ReadManifests(bytes.NewReader(data), filepath.Base(f))
		if err != nil {
			t.Fatal(err)
		}
		objects = append(objects, objs...)
	}
	if cluster != nil {
		if e.Nodes, err = cluster.Nodes(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	templates, rcs, _ := Inputs(objects)
	e.RuntimeClass = RuntimeClasses(rcs, cluster)
	r, err := e.Explain(t.Context(), templates)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// decided is the part of a template's report the tables check.
type decided struct {
	OS, OSSource string
	Builds       []string // of the images, in order
	HostBuilds   []string
	AnyBuild     bool
	Placed       bool
	RuntimeClass string // name, "+" appended when found
	Conflict     string // kind
}

func summarize(r *Report) map[string]decided {
	out := map[string]decided{}
	for _, t := range r.Templates {
		d := decided{OS: t.OS, OSSource: t.OSSource, HostBuilds: t.HostBuilds, AnyBuild: t.AnyBuild, Placed: t.PlacedByProfile}
		for _, img := range t.Images {
			d.Builds = append(d.Builds, img.Builds...)
		}
		if t.RuntimeClass != nil {
			d.RuntimeClass = t.RuntimeClass.Name
			if t.RuntimeClass.Found {
				d.RuntimeClass += "+"
			}
		}
		if t.Conflict != nil {
			d.Conflict = t.Conflict.Kind
		}
		out[t.Kind+"/"+t.Name] = d
	}
	return out
}

func TestExplainShippedManifests(t *testing.T) {
	ltsc2019 := []string{"10.0.17763"}
	tests := []struct {
		name  string
		files []string
		want  map[string]decided
	}{
		{
			name:  "manifests/examples",
			files: []string{"hostprocess.yaml", "iis-2019.yaml", "multi-release.yaml", "runtimeclass-windows-2019.yaml", "win-webserver.yaml"},
			want: map[string]decided{
				"DaemonSet/windows-node-agent":   {OS: "windows", OSSource: "hostProcess", AnyBuild: true, Placed: true},
				"Deployment/iis-2019":            {OS: "windows", OSSource: "tag", Builds: ltsc2019, HostBuilds: ltsc2019, Placed: true},
				"Deployment/nanoserver-ltsc2022": {OS: "windows", OSSource: "tag", Builds: []string{"10.0.20348"}, HostBuilds: []string{"10.0.20348", "10.0.25398", "10.0.26100"}, Placed: true},
				"Deployment/aspnet-ltsc2025":     {OS: "windows", OSSource: "tag", Builds: []string{"10.0.26100"}, HostBuilds: []string{"10.0.26100"}, Placed: true},
				"Deployment/nginx":               {OS: "linux", OSSource: "default", Placed: true},
				"Deployment/win-webserver":       {OS: "windows", OSSource: "tag", Builds: ltsc2019, HostBuilds: ltsc2019, Placed: true},
			},
		},
		{
			name:  "hack/demo/workloads: the guide's workloads, for the stock scheduler",
			files: []string{"../../hack/demo/workloads/seed.yaml", "../../hack/demo/workloads/linux.yaml"},
			want: map[string]decided{
				"Deployment/win-webserver": {OS: "windows", OSSource: "tag", Builds: ltsc2019, HostBuilds: ltsc2019},
				"Deployment/iis-2019":      {OS: "windows", OSSource: "tag", Builds: ltsc2019, HostBuilds: ltsc2019, RuntimeClass: "windows-2019+"},
				"Deployment/nginx":         {OS: "linux", OSSource: "default"},
				"Deployment/redis":         {OS: "linux", OSSource: "default"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var files []string
			for _, f := range tt.files {
				if !strings.Contains(f, "/") {
					f = "../../manifests/examples/" + f
				}
				files = append(files, f)
			}
			r := explainFiles(t, nil, files...)
			if diff := cmp.Diff(tt.want, summarize(r)); diff != "" {
				t.Errorf("decisions (-want +got):\n%s", diff)
			}
			if r.Conflicts != 0 {
				t.Errorf("%d conflicts, want none", r.Conflicts)
			}
		})
	}
}

func TestExplainConflicts(t *testing.T) {
	const rc2019 = `
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: windows-2019}
handler: runhcs-wcow-process
scheduling:
  nodeSelector: {kubernetes.io/os: windows, node.kubernetes.io/windows-build: "10.0.17763"}
  tolerations: [{key: os, operator: Equal, value: windows, effect: NoSchedule}]
---
`
	pod := func(spec string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  schedulerName: windows-aware\n" + spec
	}
	tests := []struct {
		name         string
		input        string
		want         decided
		wantMessage  string // a part of the conflict's message
		wantRejecter string
	}{
		{
			name:         "linux pod, windows image",
			input:        pod("  os: {name: linux}\n  containers: [{name: c, image: 'mcr.microsoft.com/windows/servercore:ltsc2019'}]\n"),
			want:         decided{Placed: true, Conflict: "os_vs_image"},
			wantMessage:  "pod sets .spec.os.name linux",
			wantRejecter: RejectedByScheduler,
		},
		{
			name:         "ltsc2022 image under the 2019 RuntimeClass of the same input",
			input:        rc2019 + pod("  runtimeClassName: windows-2019\n  containers: [{name: c, image: 'mcr.microsoft.com/windows/servercore:ltsc2022'}]\n"),
			want:         decided{Placed: true, RuntimeClass: "windows-2019+", Conflict: "selector_build"},
			wantMessage:  `RuntimeClass "windows-2019" merged in`,
			wantRejecter: RejectedByScheduler,
		},
		{
			name:  "the same pod without the RuntimeClass: its selector is unknown",
			input: pod("  runtimeClassName: windows-2019\n  containers: [{name: c, image: 'mcr.microsoft.com/windows/servercore:ltsc2022'}]\n"),
			want:  decided{OS: "windows", OSSource: "tag", Builds: []string{"10.0.20348"}, HostBuilds: []string{"10.0.20348", "10.0.25398", "10.0.26100"}, Placed: true, RuntimeClass: "windows-2019"},
		},
		{
			name:         "a nodeSelector the RuntimeClass contradicts",
			input:        rc2019 + pod("  runtimeClassName: windows-2019\n  nodeSelector: {node.kubernetes.io/windows-build: '10.0.20348'}\n  containers: [{name: c, image: 'mcr.microsoft.com/windows/servercore:ltsc2022'}]\n"),
			want:         decided{Placed: true, RuntimeClass: "windows-2019+", Conflict: ConflictKindRuntimeClass},
			wantMessage:  "conflict: runtimeClass.scheduling.nodeSelector[node.kubernetes.io/windows-build] = 10.0.17763; pod.spec.nodeSelector[node.kubernetes.io/windows-build] = 10.0.20348",
			wantRejecter: RejectedByAdmission,
		},
		{
			name:  "an OS the RuntimeClass sets",
			input: rc2019 + pod("  runtimeClassName: windows-2019\n  containers: [{name: c, image: 'busybox:1.36'}]\n"),
			want:  decided{OS: "windows", OSSource: "selector", AnyBuild: true, Placed: true, RuntimeClass: "windows-2019+"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "input.yaml")
			if err := os.WriteFile(file, []byte(tt.input), 0o600); err != nil {
				t.Fatal(err)
			}
			r := explainFiles(t, nil, file)
			if diff := cmp.Diff(map[string]decided{"Pod/p": tt.want}, summarize(r)); diff != "" {
				t.Errorf("decision (-want +got):\n%s", diff)
			}
			c := r.Templates[0].Conflict
			if tt.want.Conflict == "" {
				if r.Conflicts != 0 {
					t.Errorf("%d conflicts, want none", r.Conflicts)
				}
				return
			}
			if r.Conflicts != 1 || !strings.Contains(c.Message, tt.wantMessage) || c.RejectedBy != tt.wantRejecter {
				t.Errorf("%d conflicts, %+v; want one, rejected by the %s, whose message says %q", r.Conflicts, c, tt.wantRejecter, tt.wantMessage)
			}
		})
	}
	// The RuntimeClass a selector came from is named.
	dir := t.TempDir()
	file := filepath.Join(dir, "input.yaml")
	if err := os.WriteFile(file, []byte(tests[4].input), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := explainFiles(t, nil, file).Templates[0].OSFrom; !strings.Contains(got, "RuntimeClass windows-2019") {
		t.Errorf("OSFrom = %q, want it to name the RuntimeClass", got)
	}
}

func node(name, os, build string, taints ...v1.Taint) *v1.Node {
	n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelOSStable: os, v1.LabelArchStable: "amd64"}}}
	if build != "" {
		n.Labels[v1.LabelWindowsBuild] = build
	}
	n.Spec.Taints = taints
	return n
}

// cluster is a small mixed cluster: 3 Linux nodes, 2 of Windows 2019 (one
// with a taint no pod tolerates), 1 of 2022, 1 of 2025, 1 with a
// malformed build label.
func cluster(extra ...runtime.Object) *Cluster {
	osTaint := v1.Taint{Key: "os", Value: "windows", Effect: v1.TaintEffectNoSchedule}
	objects := []runtime.Object{
		node("l1", "linux", ""), node("l2", "linux", ""), node("l3", "linux", ""),
		node("w2019a", "windows", "10.0.17763", osTaint),
		node("w2019b", "windows", "10.0.17763", osTaint, v1.Taint{Key: "maintenance", Value: "true", Effect: v1.TaintEffectNoExecute}),
		node("w2022", "windows", "10.0.20348", osTaint),
		node("w2025", "windows", "10.0.26100", osTaint),
		node("wbad", "windows", "banana", osTaint),
	}
	return &Cluster{Client: fake.NewClientset(append(objects, extra...)...), Namespace: "default"}
}

func TestExplainCountsNodes(t *testing.T) {
	r := explainFiles(t, cluster(), "../../manifests/examples/multi-release.yaml", "../../manifests/examples/iis-2019.yaml")
	type group struct {
		Platform string
		Nodes    int
		Fit      int
		Reasons  map[string]int
	}
	got := map[string][]group{}
	fit := map[string]int{}
	for _, tpl := range r.Templates {
		for _, g := range tpl.Nodes.Groups {
			platform := g.OS + " " + g.Build
			if g.MalformedBuild {
				platform += " (malformed)"
			}
			got[tpl.Name] = append(got[tpl.Name], group{platform, g.Nodes, g.Fit, g.Reasons})
		}
		fit[tpl.Name] = tpl.Nodes.Fit
	}
	wrongOS := map[string]int{windowsaware.ErrReasonOS: 3}
	linux := group{"linux ", 3, 0, wrongOS}
	want := map[string][]group{
		"iis-2019": {linux,
			{"windows 10.0.17763", 2, 1, map[string]int{podneeds.ReasonUntoleratedTaint: 1}},
			{"windows 10.0.20348", 1, 0, map[string]int{windowsaware.ErrReasonBuild: 1}},
			{"windows 10.0.26100", 1, 0, map[string]int{windowsaware.ErrReasonBuild: 1}},
			{"windows banana (malformed)", 1, 0, map[string]int{windowsaware.ErrReasonMalformedBuild: 1}},
		},
		"nanoserver-ltsc2022": {linux,
			{"windows 10.0.17763", 2, 0, map[string]int{windowsaware.ErrReasonBuild: 2}},
			{"windows 10.0.20348", 1, 1, nil},
			{"windows 10.0.26100", 1, 1, nil},
			{"windows banana (malformed)", 1, 0, map[string]int{windowsaware.ErrReasonMalformedBuild: 1}},
		},
		"aspnet-ltsc2025": {linux,
			{"windows 10.0.17763", 2, 0, map[string]int{windowsaware.ErrReasonBuild: 2}},
			{"windows 10.0.20348", 1, 0, map[string]int{windowsaware.ErrReasonBuild: 1}},
			{"windows 10.0.26100", 1, 1, nil},
			{"windows banana (malformed)", 1, 0, map[string]int{windowsaware.ErrReasonMalformedBuild: 1}},
		},
		"nginx": {{"linux ", 3, 3, nil},
			{"windows 10.0.17763", 2, 0, map[string]int{windowsaware.ErrReasonOS: 2}},
			{"windows 10.0.20348", 1, 0, map[string]int{windowsaware.ErrReasonOS: 1}},
			{"windows 10.0.26100", 1, 0, map[string]int{windowsaware.ErrReasonOS: 1}},
			{"windows banana (malformed)", 1, 0, map[string]int{windowsaware.ErrReasonOS: 1}},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("node groups (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"iis-2019": 1, "nanoserver-ltsc2022": 2, "aspnet-ltsc2025": 1, "nginx": 3}, fit); diff != "" {
		t.Errorf("nodes that fit (-want +got):\n%s", diff)
	}
	if r.Nodes != 8 {
		t.Errorf("report counts %d nodes, want 8", r.Nodes)
	}
}

func TestClusterObjects(t *testing.T) {
	ctx := context.Background()
	data, err := os.ReadFile("../../manifests/examples/iis-2019.yaml")
	if err != nil {
		t.Fatal(err)
	}
	objs, _, err := ReadManifests(bytes.NewReader(data), "iis-2019.yaml")
	if err != nil {
		t.Fatal(err)
	}
	live := []runtime.Object{}
	for _, o := range objs {
		if m, ok := o.Object.(metav1.Object); ok {
			m.SetNamespace("web")
		}
		live = append(live, o.Object)
	}
	admitted := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "iis-2019-abc", Namespace: "web"},
		Spec: v1.PodSpec{
			RuntimeClassName: ptrTo("windows-2019"),
			NodeSelector:     map[string]string{v1.LabelWindowsBuild: "10.0.17763"},
			Containers:       []v1.Container{{Name: "c", Image: "mcr.microsoft.com/windows/servercore:ltsc2019"}},
		},
	}
	c := cluster(append(live, admitted)...)
	c.Namespace = "web"

	tests := []struct {
		name    string
		refs    []string
		allPods bool
		want    []string // Kind/name, admitted marked +
		wantErr string
	}{
		{name: "a deployment and a pod by name", refs: []string{"deployment/iis-2019", "iis-2019-abc"}, want: []string{"Deployment/iis-2019", "Pod/iis-2019-abc+"}},
		{name: "kubectl's short names", refs: []string{"deploy/iis-2019", "po/iis-2019-abc"}, want: []string{"Deployment/iis-2019", "Pod/iis-2019-abc+"}},
		{name: "every pod", allPods: true, want: []string{"Pod/iis-2019-abc+"}},
		{name: "a kind without a pod template", refs: []string{"service/iis"}, wantErr: "want KIND/NAME"},
		{name: "an object that is not there", refs: []string{"deployment/nope"}, wantErr: "not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objects, err := c.Objects(ctx, tt.refs, tt.allPods)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one that says %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			templates, _, _ := Inputs(objects)
			var got []string
			for _, tpl := range templates {
				s := tpl.Kind + "/" + tpl.Name
				if tpl.Admitted {
					s += "+"
				}
				got = append(got, s)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("templates (-want +got):\n%s", diff)
			}
		})
	}
}

func ptrTo[T any](v T) *T { return &v }

// TestJSONGolden holds the JSON output over manifests/examples, with a
// cluster, to testdata/examples.json (go test -update rewrites it).
func TestJSONGolden(t *testing.T) {
	files, err := filepath.Glob("../../manifests/examples/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := explainFiles(t, cluster(), files...)
	var got bytes.Buffer
	if err := WriteJSON(&got, r); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "examples.json")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if diff := cmp.Diff(string(want), got.String()); diff != "" {
		t.Errorf("JSON output (-want +got):\n%s", diff)
	}
}
