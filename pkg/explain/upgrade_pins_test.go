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
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/pkg/schedprofile"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

const imgNano2022 = "mcr.microsoft.com/windows/nanoserver:ltsc2022"

// pinnedCluster is an AKS-like cluster: a 2019 pool and two 2022 pools,
// each node with its pool's OS SKU label and the Windows taint.
func pinnedCluster() []*v1.Node {
	node := func(name, pool, build, sku string) *v1.Node {
		n := fixture.Node(name, fixture.NodeOptions{OS: "windows", Build: build, Taints: []v1.Taint{fixture.WindowsTaint}})
		n.Labels["agentpool"], n.Labels[wellknown.LabelAKSOSSKU] = pool, sku
		return n
	}
	lin := fixture.Node("lin-1", fixture.NodeOptions{OS: "linux"})
	lin.Labels["agentpool"], lin.Labels[wellknown.LabelAKSOSSKU] = "linux", "Ubuntu"
	return []*v1.Node{lin,
		node("w19-1", "win19", "10.0.17763", "Windows2019"),
		node("w22-1", "win22", "10.0.20348", "Windows2022"), node("w22-2", "win22", "10.0.20348", "Windows2022"),
		node("w22b-1", "win22b", "10.0.20348", "Windows2022"),
	}
}

// guideRuntimeClass is the Kubernetes guide's RuntimeClass for a build.
func guideRuntimeClass(name, build string) *nodev1.RuntimeClass {
	return &nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Handler: "runhcs-wcow-process",
		Scheduling: &nodev1.Scheduling{
			NodeSelector: map[string]string{v1.LabelOSStable: "windows", v1.LabelArchStable: "amd64", v1.LabelWindowsBuild: build},
			Tolerations:  []v1.Toleration{fixture.WindowsToleration}}}
}

func pinned(kind, name string, mutate func(*v1.Pod), images []string, nodes ...string) *Workload {
	tmpl := fixture.Pod("", schedprofile.Default, images...)
	tmpl.Namespace = "web"
	tmpl.Spec.Tolerations = []v1.Toleration{fixture.WindowsToleration}
	if mutate != nil {
		mutate(tmpl)
	}
	w := &Workload{Kind: kind, Namespace: "web", Name: name, Template: tmpl}
	for i, n := range nodes {
		p := tmpl.DeepCopy()
		p.Name, p.Spec.NodeName = name+"-"+string(rune('a'+i)), n
		w.Pods = append(w.Pods, p)
	}
	return w
}

func selector(kv ...string) func(*v1.Pod) {
	return func(p *v1.Pod) {
		p.Spec.NodeSelector = map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			p.Spec.NodeSelector[kv[i]] = kv[i+1]
		}
	}
}

func requiredAffinity(key string, op v1.NodeSelectorOperator, values ...string) func(*v1.Pod) {
	return func(p *v1.Pod) {
		p.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
			NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{
				{Key: v1.LabelOSStable, Operator: v1.NodeSelectorOpIn, Values: []string{"windows"}},
				{Key: key, Operator: op, Values: values}}}}}}}
	}
}

func runtimeClass(name string) func(*v1.Pod) {
	return func(p *v1.Pod) { p.Spec.RuntimeClassName = ptr.To(name) }
}

// TestPlanUpgradePins: what ties a workload to a build besides its
// images, judged against the nodes once they move: the guide's build
// selector and RuntimeClass, an affinity and AKS's OS SKU selector are
// retargeted with the fix; images no host runs together and a pin that
// selects no node today run nowhere; a RuntimeClass that does not exist
// and an affinity the plan cannot map to builds are unknown, never ready.
func TestPlanUpgradePins(t *testing.T) {
	type row struct{ Workload, Verdict, Detail string }
	tests := []struct {
		name, to, pool string
		workload       *Workload
		want           row
		// wantFixes are substrings of the fixes, one a fix, in order.
		wantFixes []string
		// wantStranded are the what-if's stranded pods.
		wantStranded []string
	}{
		{
			name: "the guide's build selector, every 2022 node to 2025: retarget",
			to:   "2025", workload: pinned("Deployment", "nano", selector(v1.LabelWindowsBuild, "10.0.20348"), []string{imgNano2022}, "w22-1"),
			want:      row{"Deployment nano", "retarget", "nodeSelector node.kubernetes.io/windows-build=10.0.20348 selects no node once the nodes move"},
			wantFixes: []string{`kubectl -n web patch deployment nano --type merge -p '{"spec":{"template":{"spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"node.kubernetes.io/windows-build","operator":"In","values":["10.0.20348","10.0.26100"]}]}]}}},"nodeSelector":{"node.kubernetes.io/windows-build":null}}}}}'`},
		},
		{
			name: "a build selector beside a required affinity: the selector set to the new build, the affinity kept",
			to:   "2025", workload: pinned("Deployment", "nano", func(p *v1.Pod) {
				requiredAffinity(v1.LabelArchStable, v1.NodeSelectorOpIn, "amd64")(p)
				selector(v1.LabelWindowsBuild, "10.0.20348")(p)
			}, []string{imgNano2022}, "w22-1"),
			want:      row{"Deployment nano", "retarget", "nodeSelector node.kubernetes.io/windows-build=10.0.20348 selects no node once the nodes move"},
			wantFixes: []string{`kubectl -n web patch deployment nano --type merge -p '{"spec":{"template":{"spec":{"nodeSelector":{"node.kubernetes.io/windows-build":"10.0.26100"}}}}}'`},
		},
		{
			name: "the guide's build selector, one 2022 pool to 2025: the other pool runs it",
			to:   "2025", pool: "agentpool=win22", workload: pinned("Deployment", "nano", selector(v1.LabelWindowsBuild, "10.0.20348"), []string{imgNano2022}, "w22-1"),
			// Drained, its pod lands on the 2022 pool that stays.
			want: row{"Deployment nano", "ready", "tag"},
		},
		{
			name: "the guide's build selector, to 2022: the 2022 nodes stay",
			to:   "2022", workload: pinned("Deployment", "nano", selector(v1.LabelWindowsBuild, "10.0.20348"), []string{imgNano2022}, "w22-1"),
			want: row{"Deployment nano", "ready", "tag"},
		},
		{
			name: "the guide's RuntimeClass for 2022, to 2025: retarget to a windows-2025 RuntimeClass",
			to:   "2025", workload: pinned("Deployment", "iis", runtimeClass("windows-2022"), []string{img2022}, "w22-2"),
			want: row{"Deployment iis", "retarget", "runtimeClass windows-2022 node.kubernetes.io/windows-build=10.0.20348 selects no node once the nodes move"},
			wantFixes: []string{`"metadata":{"name":"windows-2025"},"handler":"runhcs-wcow-process","scheduling":{"nodeSelector":{"kubernetes.io/arch":"amd64","kubernetes.io/os":"windows","node.kubernetes.io/windows-build":"10.0.26100"}`,
				`kubectl -n web patch deployment iis --type merge -p '{"spec":{"template":{"spec":{"runtimeClassName":"windows-2025"}}}}'`},
		},
		{
			name: "a RuntimeClass for the new build made already: only the patch that uses it",
			to:   "2025", workload: pinned("Deployment", "app", runtimeClass("app-2022"), []string{img2022}, "w22-2"),
			want:      row{"Deployment app", "retarget", "runtimeClass app-2022 node.kubernetes.io/windows-build=10.0.20348 selects no node once the nodes move"},
			wantFixes: []string{`kubectl -n web patch deployment app --type merge -p '{"spec":{"template":{"spec":{"runtimeClassName":"app-2025"}}}}'`},
		},
		{
			name: "the new build's RuntimeClass name taken by another: the fix in words",
			to:   "2025", workload: pinned("Deployment", "legacy", runtimeClass("legacy-2022"), []string{img2022}, "w22-2"),
			want:      row{"Deployment legacy", "retarget", "runtimeClass legacy-2022 node.kubernetes.io/windows-build=10.0.20348 selects no node once the nodes move"},
			wantFixes: []string{"RuntimeClass legacy-2025 exists, with another handler or nodeSelector than legacy-2022's moved (handler runhcs-wcow-process, node.kubernetes.io/windows-build=10.0.26100): create one of another name that has them, and use it"},
		},
		{
			name: "AKS's OS SKU selector, in place on one pool: stranded, and retarget once every 2022 node moves",
			to:   "2025", workload: pinned("StatefulSet", "db", selector(wellknown.LabelAKSOSSKU, "Windows2022"), []string{imgNano2022}, "w22-1", "w22b-1"),
			want:      row{"StatefulSet db", "retarget", "nodeSelector kubernetes.azure.com/os-sku=Windows2022 selects no node once the nodes move"},
			wantFixes: []string{`patch statefulset db --type merge -p '{"spec":{"template":{"spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"kubernetes.azure.com/os-sku","operator":"In","values":["Windows2022","Windows2025"]}]}]}}},"nodeSelector":{"kubernetes.azure.com/os-sku":null}}}}}'`},
		},
		{
			name: "an affinity on the build: the target added beside the old build",
			to:   "2025", workload: pinned("CronJob", "report", requiredAffinity(v1.LabelWindowsBuild, v1.NodeSelectorOpIn, "10.0.20348"), []string{imgNano2022}, "w22-1"),
			want:      row{"CronJob report", "retarget", "affinity node.kubernetes.io/windows-build In [10.0.20348] selects no node once the nodes move"},
			wantFixes: []string{`kubectl -n web patch cronjob report --type json -p '[{"op":"replace","path":"/spec/jobTemplate/spec/template/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0/matchExpressions/1/values","value":["10.0.20348","10.0.26100"]}]'`},
		},
		{
			name: "images no host runs together: nowhere, to 2022",
			to:   "2022", workload: pinned("Deployment", "mixed", nil, []string{img2019, img2022}),
			want: row{"Deployment mixed", "nowhere", "the scheduler places the pod on no build: the pod's images need Windows builds that no single host runs"},
		},
		{
			name: "images no host runs together: nowhere, to 2025",
			to:   "2025", workload: pinned("Deployment", "mixed", nil, []string{img2019, img2022}),
			want: row{"Deployment mixed", "nowhere", "the scheduler places the pod on no build: the pod's images need Windows builds that no single host runs"},
		},
		{
			name: "a pool selector that selects no node today: nowhere",
			to:   "2025", workload: pinned("Deployment", "lost", selector("agentpool", "win99"), []string{imgNano2022}),
			want: row{"Deployment lost", "nowhere", "no node admits it today: nodeSelector agentpool=win99 selects no Windows node"},
		},
		{
			name: "a RuntimeClass that does not exist: unknown",
			to:   "2025", workload: pinned("Deployment", "ghost", runtimeClass("windows-2031"), []string{imgNano2022}),
			want: row{"Deployment ghost", "unknown", "its RuntimeClass windows-2031 does not exist: the API server refuses its pods"},
		},
		{
			name: "a RuntimeClass that cannot be read: unknown",
			to:   "2025", workload: pinned("Deployment", "secret", runtimeClass("forbidden"), []string{imgNano2022}),
			want: row{"Deployment secret", "unknown", "its RuntimeClass forbidden could not be read: runtimeclasses.node.k8s.io \"forbidden\" is forbidden"},
		},
		{
			name: "an affinity comparing builds as integers: unknown",
			to:   "2025", workload: pinned("Deployment", "gt", requiredAffinity(v1.LabelWindowsBuild, v1.NodeSelectorOpGt, "20000"), []string{imgNano2022}),
			want: row{"Deployment gt", "unknown", "affinity node.kubernetes.io/windows-build Gt [20000]: Gt compares node.kubernetes.io/windows-build as an integer, which a Windows build is not: the plan cannot map it to builds"},
		},
		{
			name: "an ltsc2019 image pinned to 2019 needs a rebuild, and the fix of its pin",
			to:   "2022", workload: pinned("Deployment", "iis19", selector(v1.LabelWindowsBuild, "10.0.17763"), []string{img2019}, "w19-1"),
			want:      row{"Deployment iis19", "rebuild", img2019},
			wantFixes: []string{`"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"node.kubernetes.io/windows-build","operator":"In","values":["10.0.17763","10.0.20348"]}]}]}}},"nodeSelector":{"node.kubernetes.io/windows-build":null}`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := testExplainer(t)
			e.RuntimeClass = func(_ context.Context, name string) (*nodev1.RuntimeClass, error) {
				switch name {
				case "windows-2022", "app-2022", "legacy-2022":
					return guideRuntimeClass(name, "10.0.20348"), nil
				case "app-2025":
					// Made before, as the fix would make it.
					return guideRuntimeClass(name, "10.0.26100"), nil
				case "legacy-2025":
					rc := guideRuntimeClass(name, "10.0.26100")
					rc.Handler = "runhcs-wcow-hypervisor"
					return rc, nil
				case "forbidden":
					return nil, errors.New(`runtimeclasses.node.k8s.io "forbidden" is forbidden`)
				}
				return nil, nil
			}
			plan, err := e.PlanUpgrade(t.Context(), UpgradeInput{Target: build(t, tt.to), Pool: tt.pool, Nodes: pinnedCluster(), Workloads: []*Workload{tt.workload}})
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Workloads) != 1 {
				t.Fatalf("workloads %+v, want one", plan.Workloads)
			}
			w := plan.Workloads[0]
			got := row{w.Kind + " " + w.Name, string(w.Verdict), w.Reason}
			switch w.Verdict {
			case VerdictReady:
				got.Detail = w.Source
			case VerdictRebuild:
				got.Detail = w.Images[0].Image
			}
			if tt.want.Verdict != "ready" && tt.want.Verdict != "rebuild" && strings.HasPrefix(got.Detail, tt.want.Detail) {
				got.Detail = tt.want.Detail
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
			fixes := strings.Join(w.Fixes, "\n")
			rest := fixes
			for _, f := range tt.wantFixes {
				i := strings.Index(rest, f)
				if i < 0 {
					t.Errorf("fixes lack %q (in order):\n%s", f, fixes)
					break
				}
				rest = rest[i+len(f):]
			}
			if len(w.Fixes) != len(tt.wantFixes) {
				t.Errorf("%d fix(es) %q, want %d", len(w.Fixes), w.Fixes, len(tt.wantFixes))
			}
			if len(tt.wantFixes) == 0 && len(w.Fixes) > 0 {
				t.Errorf("fixes %q, want none", w.Fixes)
			}
			if tt.pool != "" {
				if diff := cmp.Diff(tt.wantStranded, podNames(plan.WhatIf.Stranded)); diff != "" {
					t.Errorf("stranded (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestPlanUpgradeStrandedBySKU: AKS's in-place OS SKU migration of a pool
// labelled Windows2022 strands the pods that select that SKU or build,
// and not those of the pool that run on 2025 too.
func TestPlanUpgradeStrandedBySKU(t *testing.T) {
	e := testExplainer(t)
	e.RuntimeClass = func(_ context.Context, name string) (*nodev1.RuntimeClass, error) {
		if name != "windows-2022" {
			return nil, nil
		}
		return guideRuntimeClass(name, "10.0.20348"), nil
	}
	workloads := []*Workload{
		pinned("Deployment", "sku", selector(wellknown.LabelAKSOSSKU, "Windows2022"), []string{imgNano2022}, "w22-1"),
		pinned("Deployment", "build", selector(v1.LabelWindowsBuild, "10.0.20348"), []string{imgNano2022}, "w22-2"),
		pinned("Deployment", "free", nil, []string{imgNano2022}, "w22-1"),
		pinned("Deployment", "rc", runtimeClass("windows-2022"), []string{imgNano2022}),
	}
	// An admitted pod carries its RuntimeClass's nodeSelector.
	rcPod := workloads[3].Template.DeepCopy()
	rcPod.Name, rcPod.Spec.NodeName = "rc-a", "w22b-1"
	if err := mergeRuntimeClass(rcPod, guideRuntimeClass("windows-2022", "10.0.20348")); err != nil {
		t.Fatal(err)
	}
	workloads[3].Pods = []*v1.Pod{rcPod}
	plan, err := e.PlanUpgrade(t.Context(), UpgradeInput{Target: build(t, "2025"), Pool: wellknown.LabelAKSOSSKU + "=Windows2022", Nodes: pinnedCluster(), Workloads: workloads})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range plan.WhatIf.Stranded {
		got = append(got, s.Name+" on "+s.Node+": "+s.Reason)
	}
	want := []string{
		"sku-a on w22-1: nodeSelector kubernetes.azure.com/os-sku=Windows2022 selects no node once the pool moves",
		"build-a on w22-2: nodeSelector node.kubernetes.io/windows-build=10.0.20348 selects no node once the pool moves",
		"rc-a on w22b-1: nodeSelector node.kubernetes.io/windows-build=10.0.20348 selects no node once the pool moves",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stranded (-want +got):\n%s", diff)
	}
	if plan.WhatIf.Nodes != 3 {
		t.Errorf("the what-if moves %d node(s), want the 3 labelled Windows2022", plan.WhatIf.Nodes)
	}
}

// TestPlanUpgradeAgents: a Windows agent pinned to 2022 by its selector
// loses the moved nodes, with the patch that keeps it there; a HostProcess
// agent keeps every one; one whose image the target does not run says so.
func TestPlanUpgradeAgents(t *testing.T) {
	workloads := []*Workload{
		pinned("DaemonSet", "pinned-agent", selector(v1.LabelOSStable, "windows", v1.LabelWindowsBuild, "10.0.20348"), []string{imgNano2022}, "w22-1", "w22-2", "w22b-1"),
		pinned("DaemonSet", "host-agent", func(p *v1.Pod) { fixture.HostProcess(p) }, []string{imgHP}, "w19-1", "w22-1", "w22-2", "w22b-1"),
	}
	plan, err := testExplainer(t).PlanUpgrade(t.Context(), UpgradeInput{Target: build(t, "2025"), Pool: "agentpool=win22", Nodes: pinnedCluster(), Workloads: workloads})
	if err != nil {
		t.Fatal(err)
	}
	// The 2019 pool to 2022, for an ltsc2019 agent.
	old, err := testExplainer(t).PlanUpgrade(t.Context(), UpgradeInput{Target: build(t, "2022"), Pool: "agentpool=win19", Nodes: pinnedCluster(),
		Workloads: []*Workload{pinned("DaemonSet", "old-agent", selector(v1.LabelOSStable, "windows"), []string{img2019}, "w19-1")}})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Name                  string
		Moving, Before, After int
		Why                   string
		Fixes                 []string
	}
	var got []row
	for _, a := range append(plan.Agents, old.Agents...) {
		got = append(got, row{a.Name, a.Moving, a.Before, a.After, a.Why, a.Fixes})
	}
	want := []row{
		{"pinned-agent", 2, 2, 0, "the DaemonSet controller places no pod on 2 moved node(s): its nodeSelector, affinity or tolerations exclude them; nodeSelector node.kubernetes.io/windows-build=10.0.20348 selects none of them once moved",
			[]string{`kubectl -n web patch daemonset pinned-agent --type merge -p '{"spec":{"template":{"spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"node.kubernetes.io/windows-build","operator":"In","values":["10.0.20348","10.0.26100"]}]}]}}},"nodeSelector":{"node.kubernetes.io/windows-build":null}}}}}'`}},
		{"host-agent", 2, 2, 2, "", nil},
		{"old-agent", 1, 1, 0, "its pods on 1 moved node(s) fail to start: " + img2019 + " has 10.0.17763 (ltsc2019) only",
			[]string{"use mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022 in place of " + img2019}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("agents (-want +got):\n%s", diff)
	}
	if plan.Summary.AgentsLosing != 1 || old.Summary.AgentsLosing != 1 {
		t.Errorf("%d and %d agent(s) lose the moved pool, want 1 and 1 (pinned-agent, old-agent)", plan.Summary.AgentsLosing, old.Summary.AgentsLosing)
	}
}

// TestUpgradeMarkdownFixes: in a change request, each fix is a code block
// to copy whole, its pipe kept, under the workload's bullet.
func TestUpgradeMarkdownFixes(t *testing.T) {
	e := testExplainer(t)
	e.RuntimeClass = func(_ context.Context, name string) (*nodev1.RuntimeClass, error) {
		if name != "windows-2022" {
			return nil, nil
		}
		return guideRuntimeClass(name, "10.0.20348"), nil
	}
	plan, err := e.PlanUpgrade(t.Context(), UpgradeInput{Target: build(t, "2025"), Nodes: pinnedCluster(),
		Workloads: []*Workload{pinned("Deployment", "iis", runtimeClass("windows-2022"), []string{img2022}, "w22-2")}})
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := WriteUpgradeMarkdown(&md, plan, e.Decider.Catalog()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"**To retarget**\n\n- Deployment `web/iis`: runtimeClass windows-2022 node.kubernetes.io/windows-build=10.0.20348 selects no node once the nodes move\n\n  ```sh\n  echo '{",
		`"metadata":{"name":"windows-2025"}`,
		"}}' | kubectl create -f -\n  ```\n",
		"  ```sh\n  kubectl -n web patch deployment iis --type merge -p '{\"spec\":{\"template\":{\"spec\":{\"runtimeClassName\":\"windows-2025\"}}}}'\n  ```\n",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
}
