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
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/imagefacts"
	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/schedprofile"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

const (
	img2019 = "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019"
	img2022 = "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022"
	img2025 = "mcr.microsoft.com/windows/servercore:ltsc2025"
	imgHP   = "mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image:v1.0.0"
	imgNone = "contoso/orders-api:1.4.2"
	// imgInventory names no build, and its pods declare no OS: the
	// scheduler placed them on Windows by what their registry told it.
	imgInventory = "contoso/inventory:2.0"
)

// upgradeCluster is a cluster with a Linux pool, two Windows Server 2019
// pools and a 2022 pool, and its workloads: an ltsc2019 Deployment, an
// ltsc2022 one, a HostProcess DaemonSet, a Windows pod whose tag names no
// build, a Linux Deployment and a Pending ltsc2025 pod.
func upgradeCluster() ([]*v1.Node, []*Workload) {
	node := func(name, pool string, o fixture.NodeOptions) *v1.Node {
		if o.OS == "windows" {
			o.Taints = []v1.Taint{fixture.WindowsTaint}
		}
		n := fixture.Node(name, o)
		n.Labels["agentpool"] = pool
		return n
	}
	nodes := []*v1.Node{
		node("lin-1", "linux", fixture.NodeOptions{OS: "linux"}),
		node("w19-1", "win19", fixture.NodeOptions{OS: "windows", Build: "10.0.17763"}),
		node("w19-2", "win19", fixture.NodeOptions{OS: "windows", Build: "10.0.17763"}),
		node("w19b-1", "win19b", fixture.NodeOptions{OS: "windows", Build: "10.0.17763"}),
		node("w22-1", "win22", fixture.NodeOptions{OS: "windows", Build: "10.0.20348"}),
	}
	pod := func(name, node string, mutate func(*v1.Pod), images ...string) *v1.Pod {
		p := fixture.Pod(name, schedprofile.Default, images...)
		p.Namespace = "web"
		p.Spec.NodeName = node
		if mutate != nil {
			mutate(p)
		}
		return p
	}
	workload := func(kind, name string, mutate func(*v1.Pod), images []string, nodes ...string) *Workload {
		w := &Workload{Kind: kind, Namespace: "web", Name: name, Template: pod("", "", mutate, images...)}
		for i, n := range nodes {
			w.Pods = append(w.Pods, pod(name+"-"+string(rune('a'+i)), n, mutate, images...))
		}
		return w
	}
	// The agent tolerates the Windows taint, as the DaemonSet controller
	// must see for its pods to be where they are.
	hostProcess := func(p *v1.Pod) {
		fixture.HostProcess(p)
		p.Spec.Tolerations = []v1.Toleration{fixture.WindowsToleration}
	}
	windowsOS := func(p *v1.Pod) { p.Spec.OS = &v1.PodOS{Name: v1.Windows} }
	pending := pod("report", "", nil, img2025)
	return nodes, []*Workload{
		workload("Deployment", "iis19", nil, []string{img2019}, "w19-1", "w19-2"),
		workload("Deployment", "iis22", nil, []string{img2022}, "w22-1"),
		workload("DaemonSet", "proxy", hostProcess, []string{imgHP}, "w19-1", "w19-2", "w19b-1", "w22-1"),
		workload("Deployment", "orders", windowsOS, []string{imgNone}, "w22-1"),
		workload("Deployment", "inventory", nil, []string{imgInventory}, "w22-1"),
		workload("Deployment", "nginx", nil, []string{"nginx:1.27"}, "lin-1"),
		{Kind: "Pod", Namespace: "web", Name: "report", Template: pending, Admitted: true, Pods: []*v1.Pod{pending}},
	}
}

func testExplainer(t testing.TB) *Explainer {
	t.Helper()
	p, err := schedprofile.Load("", "")
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewExplainer(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func build(t testing.TB, s string) windows.Build {
	t.Helper()
	b, err := ParseTarget(s, windows.DefaultCatalog())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPlanUpgrade: the verdict of every Windows workload on the target
// build, with the image, its builds and the sibling tag; the pods that
// block draining only where no node staying at its build runs them; the
// what-if of a pool.
func TestPlanUpgrade(t *testing.T) {
	type row struct{ Workload, Verdict, Detail string }
	tests := []struct {
		name string
		to   string
		pool string
		want []row
		// wantBlocking are the pods that block draining.
		wantBlocking []string
		// wantBreaks, wantLands and wantNew are the what-if's.
		wantBreaks, wantLands, wantNew []string
	}{
		{
			name: "every pool to 2022: ltsc2019 needs a rebuild and blocks draining",
			to:   "2022",
			want: []row{
				{"Deployment iis19", "rebuild", img2019 + " → mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022"},
				{"Deployment iis22", "ready", "tag"},
				{"DaemonSet proxy", "ready", "hostProcess"},
				{"Deployment orders", "unknown", "image " + imgNone + ": its tag names no Windows build: --resolve asks its registry"},
				{"Deployment inventory", "unknown", "image " + imgInventory + ": its tag names no Windows build: --resolve asks its registry"},
				{"Pod report", "rebuild", img2025 + " → mcr.microsoft.com/windows/servercore:ltsc2022"},
			},
			wantBlocking: []string{"iis19-a", "iis19-b"},
		},
		{
			name: "every pool to 2025: a 2025 host runs ltsc2022 images",
			to:   "ltsc2025",
			want: []row{
				{"Deployment iis19", "rebuild", img2019 + " → mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2025"},
				{"Deployment iis22", "ready", "tag"},
				{"DaemonSet proxy", "ready", "hostProcess"},
				{"Deployment orders", "unknown", "image " + imgNone + ": its tag names no Windows build: --resolve asks its registry"},
				{"Deployment inventory", "unknown", "image " + imgInventory + ": its tag names no Windows build: --resolve asks its registry"},
				{"Pod report", "ready", "tag"},
			},
			wantBlocking: []string{"iis19-a", "iis19-b"},
		},
		{
			name: "one 2019 pool to 2022: the other 2019 pool runs its pods, nothing blocks",
			to:   "10.0.20348",
			pool: "agentpool=win19",
			want: []row{
				{"Deployment iis19", "rebuild", img2019 + " → mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022"},
				{"Deployment iis22", "ready", "tag"},
				{"DaemonSet proxy", "ready", "hostProcess"},
				{"Deployment orders", "unknown", "image " + imgNone + ": its tag names no Windows build: --resolve asks its registry"},
			},
			wantBreaks: []string{"iis19-a", "iis19-b"},
			wantNew:    []string{"Deployment web/iis22"},
		},
		{
			name: "the 2022 pool to 2025: nothing breaks, the Pending ltsc2025 pod lands",
			to:   "2025",
			pool: "agentpool=win22",
			want: []row{
				{"Deployment iis22", "ready", "tag"},
				{"DaemonSet proxy", "ready", "hostProcess"},
				{"Deployment orders", "unknown", "image " + imgNone + ": its tag names no Windows build: --resolve asks its registry"},
				{"Deployment inventory", "unknown", "image " + imgInventory + ": its tag names no Windows build: --resolve asks its registry"},
				{"Pod report", "ready", "tag"},
			},
			wantLands: []string{"report"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nodes, workloads := upgradeCluster()
			e := testExplainer(t)
			plan, err := e.PlanUpgrade(t.Context(), UpgradeInput{Target: build(t, tt.to), Pool: tt.pool, Nodes: nodes, Workloads: workloads})
			if err != nil {
				t.Fatal(err)
			}
			var got []row
			for _, w := range plan.Workloads {
				r := row{Workload: w.Kind + " " + w.Name, Verdict: string(w.Verdict)}
				switch w.Verdict {
				case VerdictReady:
					r.Detail = w.Source
				case VerdictRebuild:
					for _, i := range w.Images {
						if i.Verdict == VerdictRebuild {
							r.Detail = i.Image + " → " + i.SiblingTag
						}
					}
				default:
					r.Detail = w.Reason
				}
				got = append(got, r)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("workloads (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantBlocking, podNames(plan.Blocking)); diff != "" {
				t.Errorf("blocking (-want +got):\n%s", diff)
			}
			if tt.pool == "" {
				if plan.WhatIf != nil {
					t.Errorf("a what-if without a pool: %+v", plan.WhatIf)
				}
				return
			}
			wi := plan.WhatIf
			if diff := cmp.Diff(tt.wantBreaks, podNames(wi.Breaks)); diff != "" {
				t.Errorf("breaks (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantLands, podNames(wi.Lands)); diff != "" {
				t.Errorf("lands (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantNew, wi.NewWorkloads, cmpEmpty); diff != "" {
				t.Errorf("new workloads (-want +got):\n%s", diff)
			}
		})
	}
}

var cmpEmpty = cmp.Transformer("empty", func(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
})

func podNames(pods []PodPlan) []string {
	var names []string
	for _, p := range pods {
		names = append(names, p.Name)
	}
	return names
}

// TestPlanUpgradeSummaryAndOutput: the counts per verdict and namespace,
// and the table and markdown name the image, its builds and the fix.
func TestPlanUpgradeSummaryAndOutput(t *testing.T) {
	nodes, workloads := upgradeCluster()
	e := testExplainer(t)
	plan, err := e.PlanUpgrade(t.Context(), UpgradeInput{Target: build(t, "2022"), Nodes: nodes, Workloads: workloads})
	if err != nil {
		t.Fatal(err)
	}
	want := UpgradeSummary{Ready: 2, Rebuild: 2, Unknown: 2, Blocking: 2, Namespaces: []NamespaceSummary{{Namespace: "web", Ready: 2, Rebuild: 2, Unknown: 2}}}
	if diff := cmp.Diff(want, plan.Summary); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	var table, md bytes.Buffer
	if err := WriteUpgradeTable(&table, plan, e.Decider.Catalog()); err != nil {
		t.Fatal(err)
	}
	if err := WriteUpgradeMarkdown(&md, plan, e.Decider.Catalog()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Upgrade of every Windows node of an older build to 10.0.20348 (ltsc2022): 3 node(s) move, from 10.0.17763 (ltsc2019)",
		img2019 + " has 10.0.17763 (ltsc2019) only: use mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022",
		img2025 + " has 10.0.26100 (ltsc2025) only: use mcr.microsoft.com/windows/servercore:ltsc2022",
		"web/iis19-a   w19-1  Deployment iis19  " + img2019 + " has 10.0.17763 (ltsc2019) only; no node that stays at its build runs it",
		"6 workload(s): 2 ready, 2 need a rebuild, 0 to retarget, 0 run nowhere, 2 unknown; 2 pod(s) block draining; 0 of 1 agent(s) lose moved nodes",
		"DaemonSet web/proxy  3            3       3      a pod on every moved node",
	} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
	for _, want := range []string{"| `web` | 2 | 2 | 0 | 0 | 2 |", "- Deployment `web/iis19`:", "- `web/iis19-a` on `w19-1` (Deployment iis19)"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
}

// TestPlanUpgradeBadInput: a pool that selects no node, or Linux nodes,
// and a target the tag table does not know, are errors that name what is
// missing.
func TestPlanUpgradeBadInput(t *testing.T) {
	nodes, workloads := upgradeCluster()
	e := testExplainer(t)
	for _, tt := range []struct{ pool, wantErr string }{
		{"agentpool=win99", "--pool agentpool=win99: no node has the label agentpool=win99 (the cluster's pools: agentpool=win19 (10.0.17763), agentpool=win19b (10.0.17763), agentpool=win22 (10.0.20348))"},
		{"agentpool=linux", "--pool agentpool=linux selects 1 node(s) that are not Windows (lin-1)"},
		{"agentpool", "want LABEL=VALUE"},
	} {
		_, err := e.PlanUpgrade(t.Context(), UpgradeInput{Target: build(t, "2025"), Pool: tt.pool, Nodes: nodes, Workloads: workloads})
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("pool %q: error %v, want %q", tt.pool, err, tt.wantErr)
		}
	}
}

// TestParseTarget: a year, a token or a build of the tag table; anything
// else is an error that lists the releases there are.
func TestParseTarget(t *testing.T) {
	for _, tt := range []struct{ in, want, wantErr string }{
		{in: "2025", want: "10.0.26100"},
		{in: "ltsc2022", want: "10.0.20348"},
		{in: "LTSC2019", want: "10.0.17763"},
		{in: "10.0.26100", want: "10.0.26100"},
		{in: "23H2", want: "10.0.25398"},
		{in: "2031", wantErr: `--to "2031": no Windows release of that name or build in the tag table (known: 23H2 (10.0.25398), 2025 (10.0.26100), 2022 (10.0.20348)`},
		{in: "10.0.99999", wantErr: "no Windows release of that name or build"},
	} {
		b, err := ParseTarget(tt.in, windows.DefaultCatalog())
		switch {
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("ParseTarget(%q): error %v, want %q", tt.in, err, tt.wantErr)
		case tt.wantErr == "" && (err != nil || b.String() != tt.want):
			t.Errorf("ParseTarget(%q) = %s, %v; want %s", tt.in, b, err, tt.want)
		}
	}
}

// TestGroupWorkloads: a pod of a Deployment's ReplicaSet belongs to the
// Deployment, a pod of a CronJob's Job to the CronJob; a pod whose owner
// kind may not be listed stands for an unreadable workload; a pod without
// a controller is a bare pod.
func TestGroupWorkloads(t *testing.T) {
	owned := func(obj metav1.Object, kind, owner string) {
		obj.SetOwnerReferences([]metav1.OwnerReference{{Kind: kind, Name: owner, Controller: ptr.To(true)}})
	}
	meta := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: name, Namespace: "web"} }
	rs := &appsv1.ReplicaSet{ObjectMeta: meta("iis-7d9c")}
	owned(rs, "Deployment", "iis")
	job := &batchv1.Job{ObjectMeta: meta("report-2901")}
	owned(job, "CronJob", "report")
	pod := func(name, kind, owner string) *v1.Pod {
		p := fixture.Pod(name, schedprofile.Default, img2022)
		p.Namespace = "web"
		if kind != "" {
			owned(p, kind, owner)
		}
		return p
	}
	o := &WorkloadObjects{
		Deployments: []*appsv1.Deployment{{ObjectMeta: meta("iis")}},
		ReplicaSets: []*appsv1.ReplicaSet{rs},
		CronJobs:    []*batchv1.CronJob{{ObjectMeta: meta("report")}},
		Jobs:        []*batchv1.Job{job},
		Pods: []*v1.Pod{
			pod("iis-7d9c-a", "ReplicaSet", "iis-7d9c"), pod("report-2901-x", "Job", "report-2901"),
			pod("db-0", "StatefulSet", "db"), pod("debug", "", ""),
		},
		Unreadable: map[string]string{"StatefulSet": "its StatefulSet cannot be read: you may not list statefulsets.apps in namespace web (RBAC)"},
	}
	type row struct {
		Workload   string
		Pods       int
		Unreadable string
	}
	var got []row
	for _, w := range GroupWorkloads(o) {
		got = append(got, row{w.Kind + " " + w.Name, len(w.Pods), w.Unreadable})
	}
	want := []row{
		{"Deployment iis", 1, ""}, {"CronJob report", 1, ""},
		{"StatefulSet db", 1, o.Unreadable["StatefulSet"]}, {"Pod debug", 1, ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("workloads (-want +got):\n%s", diff)
	}
}

// TestPlanUpgradeUnreadable: a workload that cannot be read is planned as
// unknown with the reason, never left out.
func TestPlanUpgradeUnreadable(t *testing.T) {
	nodes, _ := upgradeCluster()
	p := fixture.Pod("db-0", schedprofile.Default, img2019)
	p.Namespace, p.Spec.NodeName = "web", "w19-1"
	reason := "its StatefulSet cannot be read: you may not list statefulsets.apps in namespace web (RBAC)"
	plan, err := testExplainer(t).PlanUpgrade(t.Context(), UpgradeInput{Target: build(t, "2022"), Nodes: nodes,
		Workloads: []*Workload{{Kind: "StatefulSet", Namespace: "web", Name: "db", Unreadable: reason, Pods: []*v1.Pod{p}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Workloads) != 1 || plan.Workloads[0].Verdict != VerdictUnknown || plan.Workloads[0].Reason != reason {
		t.Errorf("workloads %+v, want StatefulSet db unknown: %s", plan.Workloads, reason)
	}
}

// TestPlanUpgradeResolve: with registries asked, images whose tags name
// no build get the registry's verdict, and each distinct image is asked
// once however many workloads and pods use it.
func TestPlanUpgradeResolve(t *testing.T) {
	s := registrytest.New(t, registrytest.WithTLS())
	s.Push(t, "app19:1", registrytest.WindowsImage(t, "10.0.17763.6532"))
	s.Push(t, "app22:1", registrytest.WindowsImage(t, "10.0.20348.2849"))
	s.Push(t, "multi:1", registrytest.Index(t, registrytest.OCI,
		registrytest.Entry{OS: "windows", Arch: "amd64", OSVersion: "10.0.17763.6532"},
		registrytest.Entry{OS: "windows", Arch: "amd64", OSVersion: "10.0.20348.2849"}))
	images := []string{s.Ref("app19:1"), s.Ref("app22:1"), s.Ref("multi:1")}
	nodes, _ := upgradeCluster()
	workloadsOf := func(copies int) []*Workload {
		var out []*Workload
		for c := range copies {
			for i, img := range images {
				tmpl := fixture.Pod("", schedprofile.Default, img)
				tmpl.Namespace, tmpl.Spec.OS = "web", &v1.PodOS{Name: v1.Windows}
				w := &Workload{Kind: "Deployment", Namespace: "web", Name: strings.Split(img, "/")[1] + "-" + string(rune('a'+c)), Template: tmpl}
				for r := range 3 {
					p := tmpl.DeepCopy()
					p.Name, p.Spec.NodeName = w.Name+"-"+string(rune('a'+r)), []string{"w19-1", "w22-1", "w19-1"}[i]
					w.Pods = append(w.Pods, p)
				}
				out = append(out, w)
			}
		}
		return out
	}
	plan := func(copies int) (*UpgradePlan, int) {
		s.ResetCounts()
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		args := s.ResolvingArgs(config.ResolutionWindows, config.OnFailureTagRules, 10*time.Second)
		dr, err := podneeds.New(args)
		if err != nil {
			t.Fatal(err)
		}
		facts, err := imagefacts.Start(ctx, &args.ImageResolution, dr, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		e := testExplainer(t)
		e.Decider, e.Facts = dr, facts
		e.Resolve = func(ctx context.Context, pod *v1.Pod) error {
			ctx, done := context.WithTimeout(ctx, 10*time.Second)
			defer done()
			return facts.Resolve(ctx, pod)
		}
		p, err := e.PlanUpgrade(ctx, UpgradeInput{Target: build(t, "2022"), Pool: "agentpool=win19", Nodes: nodes, Workloads: workloadsOf(copies)})
		if err != nil {
			t.Fatal(err)
		}
		return p, s.Total()
	}
	once, onceRequests := plan(1)
	var verdicts []string
	for _, w := range once.Workloads {
		verdicts = append(verdicts, w.Name+" "+string(w.Verdict)+" "+w.Source)
	}
	if diff := cmp.Diff([]string{"app19:1-a rebuild ", "app22:1-a ready registry", "multi:1-a ready registry"}, verdicts); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
	if got := once.Workloads[0].Images[0]; got.Source != "registry" || !slices.Equal(got.Builds, []string{"10.0.17763"}) {
		t.Errorf("app19 image %+v, want builds 10.0.17763 from the registry", got)
	}
	if onceRequests == 0 {
		t.Fatal("the registry was not asked")
	}
	if _, many := plan(20); many != onceRequests {
		t.Errorf("60 workloads and 180 pods of 3 images made %d registry requests; one workload per image made %d: each image is to be asked once", many, onceRequests)
	}
}
