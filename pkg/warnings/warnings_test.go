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

package warnings

import (
	"encoding/json"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/oracle"
	"github.com/windows-aware/windows-aware/pkg/apis/config/scheme"
	"github.com/windows-aware/windows-aware/pkg/inventory"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

const (
	warnImg2016  = "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2016"
	warnImg2019  = "mcr.microsoft.com/windows/servercore:ltsc2019"
	warnImg2022  = "mcr.microsoft.com/windows/nanoserver:ltsc2022"
	warnImgLinux = "nginx:1.27"
)

// warnCluster is an inventory of Linux, Windows Server 2022 and 2025
// nodes, the Windows ones tainted os=windows:NoSchedule.
func warnCluster(extra ...*unstructured.Unstructured) *inventory.Inventory {
	inv := inventory.New()
	for _, n := range []*v1.Node{
		fixture.Node("l1", fixture.NodeOptions{}),
		fixture.Node("w22", fixture.NodeOptions{OS: "windows", Build: oracle.Build2022, Taints: []v1.Taint{fixture.WindowsTaint}}),
		fixture.Node("w25", fixture.NodeOptions{OS: "windows", Build: oracle.Build2025, Taints: []v1.Taint{fixture.WindowsTaint}}),
	} {
		n.Labels["agentpool"] = n.Name
		obj, _ := inventory.Project(n)
		inv.NodeHandler().OnAdd(obj, true)
	}
	for _, p := range extra {
		obj, _ := inventory.ProjectNodePool(p)
		inv.NodePoolHandler().OnAdd(obj, true)
	}
	return inv
}

func warnLinuxOnly() *inventory.Inventory {
	inv := inventory.New()
	inv.SetNode(fixture.Node("l1", fixture.NodeOptions{}))
	return inv
}

func warnKarpenterPool(name, build string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": map[string]any{"name": name},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"requirements": []any{
				map[string]any{"key": "kubernetes.io/os", "operator": "In", "values": []any{"windows"}},
				map[string]any{"key": v1.LabelWindowsBuild, "operator": "In", "values": []any{build}},
			},
			"taints": []any{map[string]any{"key": "os", "value": "windows", "effect": "NoSchedule"}},
		}}},
	}}
}

// warnUnsynced is an inventory whose informers have not listed yet.
type warnUnsynced struct{}

func (warnUnsynced) Snapshot() *inventory.Snapshot { return &inventory.Snapshot{} }

func warnSpec(images ...string) v1.PodSpec {
	s := v1.PodSpec{SchedulerName: "windows-aware"}
	for i, img := range images {
		s.Containers = append(s.Containers, v1.Container{Name: "c" + string(rune('a'+i)), Image: img})
	}
	return s
}

func warnWithSpec(s v1.PodSpec, mutate func(*v1.PodSpec)) v1.PodSpec {
	mutate(&s)
	return s
}

func warnReview(t *testing.T, op admissionv1.Operation, resource string, obj, old runtime.Object) *admissionv1.AdmissionRequest {
	t.Helper()
	gvr := metav1.GroupVersionResource{Version: "v1", Resource: resource}
	switch resource {
	case "deployments", "statefulsets", "daemonsets", "replicasets":
		gvr.Group = "apps"
	case "jobs", "cronjobs":
		gvr.Group = "batch"
	}
	raw := func(o runtime.Object) runtime.RawExtension {
		if o == nil {
			return runtime.RawExtension{}
		}
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		return runtime.RawExtension{Raw: b}
	}
	return &admissionv1.AdmissionRequest{UID: "u", Operation: op, Resource: gvr, Namespace: "ns", Object: raw(obj), OldObject: raw(old)}
}

func warnDeployment(name string, s v1.PodSpec) *appsv1.Deployment {
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}, Spec: appsv1.DeploymentSpec{Template: v1.PodTemplateSpec{Spec: s}}}
}

func warnPod(name string, s v1.PodSpec) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}, Spec: s}
}

// TestWarnings: what the warnings webhook answers, by what the object
// runs and what the cluster has: each warning, in explain's words, at
// most 120 characters a line; a refusal only where the namespace enforces.
func TestWarnings(t *testing.T) {
	for _, tt := range warningsTests() {
		t.Run(tt.name, func(t *testing.T) {
			w, err := New("windows-aware", scheme.DefaultArgs(), tt.nodes, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, outcome := w.Admit(klog.Background(), tt.req(t), tt.enforce)
			if outcome != tt.want {
				t.Errorf("outcome %s, want %s (warnings %q)", outcome, tt.want, resp.Warnings)
			}
			if resp.Allowed != (outcome != OutcomeRefused) || (!tt.enforce && !resp.Allowed) {
				t.Errorf("allowed = %v with outcome %s, enforce %v", resp.Allowed, outcome, tt.enforce)
			}
			text := resp.Warnings
			if !resp.Allowed {
				if len(resp.Warnings) != 0 || resp.Result == nil || !strings.Contains(resp.Result.Message, wellknown.LabelEnforce+"=true") {
					t.Errorf("a refusal says why in its status, not in warnings: %+v", resp)
				}
				text = []string{resp.Result.Message}
			}
			for _, l := range resp.Warnings {
				if len(l) > MaxLength || strings.ContainsAny(l, "\n\r") || !strings.HasPrefix(l, warningPrefix) {
					t.Errorf("warning of %d characters, not one line of at most %d with the prefix: %q", len(l), MaxLength, l)
				}
			}
			joined := joinWarnings(text)
			at := 0
			for _, want := range tt.wantLines {
				i := strings.Index(joined[at:], want)
				if i < 0 {
					t.Errorf("warnings do not say %q (after what came before); they say:\n%s", want, strings.Join(resp.Warnings, "\n"))
					continue
				}
				at += i + len(want)
			}
			if tt.wantLines == nil && len(resp.Warnings) > 0 {
				t.Errorf("unexpected warnings:\n%s", strings.Join(resp.Warnings, "\n"))
			}
		})
	}
}

// warningsTest is a case of TestWarnings.
type warningsTest struct {
	name    string
	nodes   Inventory
	req     func(t *testing.T) *admissionv1.AdmissionRequest
	enforce bool
	want    Outcome
	// wantLines are substrings of the warnings, joined by a space with
	// the prefixes taken out, in order.
	wantLines []string
}

// warningsTests are TestWarnings' cases, which TestWarningsDecode reads
// both ways too.
func warningsTests() []warningsTest {
	owned := warnPod("web-abc", warnSpec(warnImg2016))
	owned.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "1", Controller: ptr.To(true)}}
	return []warningsTest{{
		name:  "an ltsc2016 Deployment on a cluster of 2022 and 2025 nodes",
		nodes: warnCluster(),
		req: func(t *testing.T) *admissionv1.AdmissionRequest {
			return warnReview(t, admissionv1.Create, "deployments", warnDeployment("legacy", warnSpec(warnImg2016)), nil)
		},
		want: OutcomeWarned,
		wantLines: []string{"Deployment legacy runs on none of the cluster's 3 node(s)",
			"no node runs 10.0.14393 (ltsc2016): add a Windows Server 2016 pool, or retag the image for ltsc2022 or ltsc2025"},
	}, {
		name:  "the same Deployment where a Karpenter NodePool makes 2016 nodes",
		nodes: warnCluster(warnKarpenterPool("win16", oracle.Build2016)),
		req: func(t *testing.T) *admissionv1.AdmissionRequest {
			return warnReview(t, admissionv1.Create, "deployments", warnDeployment("legacy", warnSpec(warnImg2016)), nil)
		},
		want: OutcomeClean,
	}, {
		name:  "a NodePool of another build does not count",
		nodes: warnCluster(warnKarpenterPool("win19", oracle.Build2019)),
		req: func(t *testing.T) *admissionv1.AdmissionRequest {
			return warnReview(t, admissionv1.Create, "deployments", warnDeployment("legacy", warnSpec(warnImg2016)), nil)
		},
		want:      OutcomeWarned,
		wantLines: []string{"none of the cluster's 3 node(s), nor on those its 1 NodePool(s) make", "add a Windows Server 2016 pool"},
	}, {
		name:  "the same Deployment refused where the namespace enforces",
		nodes: warnCluster(),
		req: func(t *testing.T) *admissionv1.AdmissionRequest {
			return warnReview(t, admissionv1.Create, "deployments", warnDeployment("legacy", warnSpec(warnImg2016)), nil)
		},
		enforce:   true,
		want:      OutcomeRefused,
		wantLines: []string{"add a Windows Server 2016 pool"},
	}, {
		name:    "a Deployment that runs is admitted where the namespace enforces",
		nodes:   warnCluster(),
		enforce: true,
		req: func(t *testing.T) *admissionv1.AdmissionRequest {
			return warnReview(t, admissionv1.Create, "deployments", warnDeployment("web", warnSpec(warnImg2022)), nil)
		},
		want: OutcomeClean,
	}, {
		name:  "no node of the pod's OS",
		nodes: warnLinuxOnly(),
		req: func(t *testing.T) *admissionv1.AdmissionRequest {
			return warnReview(t, admissionv1.Create, "pods", warnPod("iis", warnSpec(warnImg2022)), nil)
		},
		want:      OutcomeWarned,
		wantLines: []string{"Pod iis runs on none", "no node runs 10.0.20348 (ltsc2022), 10.0.25398 (23H2), 10.0.26100 (ltsc2025): add a Windows Server 2022 pool"},
	}, {
		name:  "a pod declaring Linux with a Windows image: a conflict, and its fix",
		nodes: warnCluster(),
		req: func(t *testing.T) *admissionv1.AdmissionRequest {
			return warnReview(t, admissionv1.Create, "pods", warnPod("mixed", warnWithSpec(warnSpec(warnImg2022), func(s *v1.PodSpec) {
				s.SchedulerName = v1.DefaultSchedulerName
				s.OS = &v1.PodOS{Name: v1.Linux}
			})), nil)
		},
		want:      OutcomeWarned,
		wantLines: []string{`Pod mixed: pod sets .spec.os.name linux but image "` + warnImg2022 + `" is a Windows image`, "fix: make the pod's OS (.spec.os.name"},
	}, {
		name:  "images of two releases",
		nodes: warnCluster(),
		req: func(t *testing.T) *admissionv1.AdmissionRequest {
			return warnReview(t, admissionv1.Create, "statefulsets", &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db"},
				Spec: appsv1.StatefulSetSpec{Template: v1.PodTemplateSpec{Spec: warnSpec(warnImg2019, warnImg2022)}}}, nil)
		},
		want:      OutcomeWarned,
		wantLines: []string{"StatefulSet db: the pod's images need Windows builds that no single host runs", "fix: use images of one Windows release"},
	}, {
		name:  "a selector on another OS",
		nodes: warnCluster(),
		req: func(t *testing.T) *admissionv1.AdmissionRequest {
			return warnReview(t, admissionv1.Create, "jobs", &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "batch"},
				Spec: batchv1.JobSpec{Template: v1.PodTemplateSpec{Spec: warnWithSpec(warnSpec(warnImg2022), func(s *v1.PodSpec) {
					s.NodeSelector = map[string]string{v1.LabelOSStable: "linux"}
				})}}}, nil)
		},
		want:      OutcomeWarned,
		wantLines: []string{"Job batch: the pod needs a windows node but", "fix: remove the pod's own selector or affinity on kubernetes.io/os"},
	}, {
		name:  "a pod of another scheduler the Windows taint repels",
		nodes: warnCluster(),
		req: func(t *testing.T) *admissionv1.AdmissionRequest {
			return warnReview(t, admissionv1.Create, "daemonsets", &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent"},
				Spec: appsv1.DaemonSetSpec{Template: v1.PodTemplateSpec{Spec: warnWithSpec(warnSpec(warnImg2022), func(s *v1.PodSpec) { s.SchedulerName = "" })}}}, nil)
		},
		want:      OutcomeWarned,
		wantLines: []string{"DaemonSet agent runs on none", "every node that runs it (pool w22, pool w25) has a taint the pod does not tolerate (os=windows:NoSchedule)"},
	}, {
		name:  "a CronJob that runs",
		nodes: warnCluster(),
		req: func(t *testing.T) *admissionv1.AdmissionRequest {
			return warnReview(t, admissionv1.Create, "cronjobs", &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "nightly"},
				Spec: batchv1.CronJobSpec{JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: v1.PodTemplateSpec{Spec: warnSpec(warnImgLinux)}}}}}, nil)
		},
		want: OutcomeClean,
	}, {
		name:  "a ReplicaSet's template is read too",
		nodes: warnCluster(),
		req: func(t *testing.T) *admissionv1.AdmissionRequest {
			return warnReview(t, admissionv1.Create, "replicasets", &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "rs"},
				Spec: appsv1.ReplicaSetSpec{Template: v1.PodTemplateSpec{Spec: warnSpec(warnImg2016)}}}, nil)
		},
		want:      OutcomeWarned,
		wantLines: []string{"ReplicaSet rs runs on none"},
	}, {
		name:  "a template change is judged",
		nodes: warnCluster(),
		req: func(t *testing.T) *admissionv1.AdmissionRequest {
			return warnReview(t, admissionv1.Update, "deployments", warnDeployment("legacy", warnSpec(warnImg2016)), warnDeployment("legacy", warnSpec(warnImg2022)))
		},
		want:      OutcomeWarned,
		wantLines: []string{"add a Windows Server 2016 pool"},
	}, {
		name:  "an update that leaves the template is not",
		nodes: warnCluster(),
		req: func(t *testing.T) *admissionv1.AdmissionRequest {
			return warnReview(t, admissionv1.Update, "deployments", warnDeployment("legacy", warnSpec(warnImg2016)), warnDeployment("legacy", warnSpec(warnImg2016)))
		},
		want: OutcomeSkipped,
	}, {
		name:    "a pod its controller made is not, even where the namespace enforces",
		nodes:   warnCluster(),
		enforce: true,
		req: func(t *testing.T) *admissionv1.AdmissionRequest {
			return warnReview(t, admissionv1.Create, "pods", owned, nil)
		},
		want: OutcomeSkipped,
	}, {
		name:  "nothing is said before every node is listed",
		nodes: warnUnsynced{},
		req: func(t *testing.T) *admissionv1.AdmissionRequest {
			return warnReview(t, admissionv1.Create, "deployments", warnDeployment("legacy", warnSpec(warnImg2016)), nil)
		},
		want: OutcomeClean,
	}, {
		name:  "an object that does not decode is admitted",
		nodes: warnCluster(),
		req: func(t *testing.T) *admissionv1.AdmissionRequest {
			r := warnReview(t, admissionv1.Create, "deployments", warnDeployment("x", warnSpec(warnImg2016)), nil)
			r.Object.Raw = []byte(`{"spec": 3}`)
			return r
		},
		want: OutcomeError,
	}}
}

// joinWarnings is the text of warnings with their prefixes taken out, a
// sentence cut over several warnings joined again.
func joinWarnings(lines []string) string {
	var parts []string
	for _, l := range lines {
		parts = append(parts, strings.TrimPrefix(strings.TrimPrefix(l, warningPrefix), continuation))
	}
	return strings.Join(parts, " ")
}

// TestWarningLines: any text is cut into lines of at most 120 characters
// between words, a word longer than a line where the line ends, and
// nothing is lost.
func TestWarningLines(t *testing.T) {
	long := strings.Repeat("x", 300)
	tests := []struct {
		text      string
		wantLines int
	}{
		{"short", 1},
		{strings.Repeat("word ", 40), 2},
		{strings.Repeat("word ", 60), 3},
		{"image " + long + " is long", 4},
		{"a\nmultiline\ttext", 1},
	}
	for _, tt := range tests {
		lines := warningLines(tt.text)
		if len(lines) != tt.wantLines {
			t.Errorf("%d lines, want %d: %q", len(lines), tt.wantLines, lines)
		}
		for _, l := range lines {
			if len(l) > MaxLength || strings.ContainsAny(l, "\n\t") {
				t.Errorf("line of %d characters: %q", len(l), l)
			}
		}
		got := strings.ReplaceAll(joinWarnings(lines), " ", "")
		if want := strings.Join(strings.Fields(tt.text), ""); got != want {
			t.Errorf("lines say %q, want %q", got, want)
		}
	}
}

// TestWarningsWithoutInventory: with WithoutInventory, a pod that runs on
// no node is told so without the inventory's facts (node and NodePool
// counts, pool names, taints, the cluster's builds); a conflict, which is
// about the pod alone, is worded as ever.
func TestWarningsWithoutInventory(t *testing.T) {
	checked := 0
	for _, tt := range warningsTests() {
		t.Run(tt.name, func(t *testing.T) {
			full, err := New("windows-aware", scheme.DefaultArgs(), tt.nodes, nil)
			if err != nil {
				t.Fatal(err)
			}
			terse, _ := New("windows-aware", scheme.DefaultArgs(), tt.nodes, nil)
			terse.WithoutInventory = true
			fullResp, _ := full.Admit(klog.Background(), tt.req(t), false)
			terseResp, _ := terse.Admit(klog.Background(), tt.req(t), false)
			fullText, terseText := joinWarnings(fullResp.Warnings), joinWarnings(terseResp.Warnings)
			if !strings.Contains(fullText, "runs on none of the cluster's") {
				if fullText != terseText {
					t.Errorf("a warning without the inventory changed:\n%s\nbecame\n%s", fullText, terseText)
				}
				return
			}
			checked++
			if !strings.Contains(terseText, "runs on no node of the cluster") {
				t.Errorf("warnings %q do not say the object runs on no node", terseText)
			}
			for _, secret := range []string{"node(s)", "NodePool", "pool", "10.0.", "NoSchedule", "=windows"} {
				if strings.Contains(terseText, secret) {
					t.Errorf("warnings without the inventory say %q:\n%s", secret, terseText)
				}
			}
		})
	}
	if checked == 0 {
		t.Fatal("no case runs on no node: the test checks nothing")
	}
}
