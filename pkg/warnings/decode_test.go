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
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	"github.com/windows-aware/windows-aware/pkg/apis/config/scheme"
)

// fullKinds decode an object of each warned kind whole, into the API's
// types, and find its template: how the warnings read a review before
// they read only what they judge, kept as the reference they must agree
// with.
var fullKinds = map[string]func(raw []byte) (metav1.Object, *v1.PodTemplateSpec, error){
	"Deployment":  fullTemplate(func(o *appsv1.Deployment) *v1.PodTemplateSpec { return &o.Spec.Template }),
	"StatefulSet": fullTemplate(func(o *appsv1.StatefulSet) *v1.PodTemplateSpec { return &o.Spec.Template }),
	"DaemonSet":   fullTemplate(func(o *appsv1.DaemonSet) *v1.PodTemplateSpec { return &o.Spec.Template }),
	"ReplicaSet":  fullTemplate(func(o *appsv1.ReplicaSet) *v1.PodTemplateSpec { return &o.Spec.Template }),
	"Job":         fullTemplate(func(o *batchv1.Job) *v1.PodTemplateSpec { return &o.Spec.Template }),
	"CronJob":     fullTemplate(func(o *batchv1.CronJob) *v1.PodTemplateSpec { return &o.Spec.JobTemplate.Spec.Template }),
	"Pod": func(raw []byte) (metav1.Object, *v1.PodTemplateSpec, error) {
		var pod v1.Pod
		if err := json.Unmarshal(raw, &pod); err != nil {
			return nil, nil, err
		}
		return &pod, &v1.PodTemplateSpec{ObjectMeta: pod.ObjectMeta, Spec: pod.Spec}, nil
	},
}

func fullTemplate[T any, P interface {
	*T
	metav1.Object
}](template func(P) *v1.PodTemplateSpec) func(raw []byte) (metav1.Object, *v1.PodTemplateSpec, error) {
	return func(raw []byte) (metav1.Object, *v1.PodTemplateSpec, error) {
		obj := P(new(T))
		if err := json.Unmarshal(raw, obj); err != nil {
			return nil, nil, err
		}
		return obj, template(obj), nil
	}
}

// fullJudgement is what the warnings said of a request when they decoded
// its objects whole: the outcome (never refused: the refusal only words
// the same lines otherwise) and the lines; and the pod judged.
func fullJudgement(w *Warner, req *admissionv1.AdmissionRequest) (Outcome, []string, *v1.Pod) {
	kind, ok := warnedKinds[req.Resource]
	if !ok || req.SubResource != "" || (req.Operation != admissionv1.Create && req.Operation != admissionv1.Update) {
		return OutcomeSkipped, nil, nil
	}
	obj, tmpl, err := fullKinds[kind](req.Object.Raw)
	if err != nil {
		return OutcomeError, nil, nil
	}
	if kind == "Pod" {
		if req.Operation != admissionv1.Create || metav1.GetControllerOf(obj) != nil || tmpl.Spec.NodeName != "" ||
			obj.GetAnnotations()[v1.MirrorPodAnnotationKey] != "" {
			return OutcomeSkipped, nil, nil
		}
	} else if req.Operation == admissionv1.Update {
		if _, old, err := fullKinds[kind](req.OldObject.Raw); err == nil && apiequality.Semantic.DeepEqual(old.Spec, tmpl.Spec) {
			return OutcomeSkipped, nil, nil
		}
	}
	name := obj.GetName()
	if name == "" {
		name = obj.GetGenerateName() + "*"
	}
	pod := &v1.Pod{ObjectMeta: tmpl.ObjectMeta, Spec: tmpl.Spec}
	if pod.Namespace == "" {
		pod.Namespace = req.Namespace
	}
	lines := w.Warnings(kind+" "+name, pod)
	if len(lines) == 0 {
		return OutcomeClean, nil, pod
	}
	return OutcomeWarned, lines, pod
}

// readFields is the part of a pod the warnings read: what their decoding
// must set as the full decode does.
func readFields(pod *v1.Pod) *v1.Pod {
	out := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: pod.Name, GenerateName: pod.GenerateName, Namespace: pod.Namespace, UID: pod.UID,
			Annotations: pod.Annotations, OwnerReferences: pod.OwnerReferences},
		Spec: v1.PodSpec{OS: pod.Spec.OS, NodeSelector: pod.Spec.NodeSelector, Tolerations: pod.Spec.Tolerations,
			RuntimeClassName: pod.Spec.RuntimeClassName, SchedulerName: pod.Spec.SchedulerName, NodeName: pod.Spec.NodeName,
			ImagePullSecrets: pod.Spec.ImagePullSecrets},
	}
	for _, cs := range []struct{ from, to *[]v1.Container }{{&pod.Spec.InitContainers, &out.Spec.InitContainers}, {&pod.Spec.Containers, &out.Spec.Containers}} {
		if *cs.from == nil {
			continue
		}
		*cs.to = []v1.Container{}
		for _, c := range *cs.from {
			r := v1.Container{Name: c.Name, Image: c.Image}
			if c.SecurityContext != nil {
				r.SecurityContext = &v1.SecurityContext{WindowsOptions: c.SecurityContext.WindowsOptions}
			}
			*cs.to = append(*cs.to, r)
		}
	}
	if a := pod.Spec.Affinity; a != nil {
		out.Spec.Affinity = &v1.Affinity{}
		if a.NodeAffinity != nil {
			out.Spec.Affinity.NodeAffinity = &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution}
		}
	}
	if sc := pod.Spec.SecurityContext; sc != nil {
		out.Spec.SecurityContext = &v1.PodSecurityContext{WindowsOptions: sc.WindowsOptions}
	}
	return out
}

// decodeTests are requests whose pods set every field the warnings read,
// and updates that change the template, or only its text, or not at all.
func decodeTests() []warningsTest {
	full := warnWithSpec(warnSpec(warnImg2022, warnImgLinux), func(s *v1.PodSpec) {
		s.InitContainers = []v1.Container{{Name: "init", Image: warnImg2019, SecurityContext: &v1.SecurityContext{
			WindowsOptions: &v1.WindowsSecurityContextOptions{HostProcess: ptr.To(false), RunAsUserName: ptr.To("ContainerUser")}}}}
		s.OS = &v1.PodOS{Name: v1.Windows}
		s.NodeSelector = map[string]string{v1.LabelOSStable: "windows", "agentpool": "w22"}
		s.Affinity = &v1.Affinity{
			NodeAffinity: &v1.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
					MatchExpressions: []v1.NodeSelectorRequirement{{Key: v1.LabelWindowsBuild, Operator: v1.NodeSelectorOpIn, Values: []string{"10.0.20348"}}},
				}}},
				PreferredDuringSchedulingIgnoredDuringExecution: []v1.PreferredSchedulingTerm{{Weight: 1, Preference: v1.NodeSelectorTerm{
					MatchExpressions: []v1.NodeSelectorRequirement{{Key: "zone", Operator: v1.NodeSelectorOpExists}}}}},
			},
			PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{TopologyKey: "zone"}}},
		}
		s.Tolerations = []v1.Toleration{{Key: "os", Operator: v1.TolerationOpEqual, Value: "windows", Effect: v1.TaintEffectNoSchedule},
			{Key: "gone", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](30)}}
		s.RuntimeClassName = ptr.To("windows-2022")
		s.ImagePullSecrets = []v1.LocalObjectReference{{Name: "acr"}}
		s.Containers[0].Env = []v1.EnvVar{{Name: "A", Value: "1"}}
		s.Containers[0].Resources.Limits = v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}
	})
	hostProcess := warnWithSpec(warnSpec("mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image:v1.0.0"), func(s *v1.PodSpec) {
		s.SecurityContext = &v1.PodSecurityContext{WindowsOptions: &v1.WindowsSecurityContextOptions{HostProcess: ptr.To(true)}}
		s.HostNetwork = true
	})
	containerHostProcess := warnWithSpec(warnSpec(warnImgLinux), func(s *v1.PodSpec) {
		s.Containers[0].SecurityContext = &v1.SecurityContext{WindowsOptions: &v1.WindowsSecurityContextOptions{HostProcess: ptr.To(true)}}
	})
	untolerated := warnWithSpec(warnSpec(warnImg2022), func(s *v1.PodSpec) {
		s.SchedulerName = ""
		s.Tolerations = []v1.Toleration{{Key: "os", Operator: v1.TolerationOpEqual, Value: "linux"}}
	})
	pinnedLinux := warnWithSpec(warnSpec(warnImg2022), func(s *v1.PodSpec) {
		s.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
			NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{{Key: v1.LabelOSStable, Operator: v1.NodeSelectorOpIn, Values: []string{"linux"}}}}},
		}}}
	})
	withEnv := warnWithSpec(warnSpec(warnImg2016), func(s *v1.PodSpec) { s.Containers[0].Env = []v1.EnvVar{{Name: "A", Value: "2"}} })
	milli := warnWithSpec(warnSpec(warnImg2016), func(s *v1.PodSpec) {
		s.Containers[0].Resources.Requests = v1.ResourceList{v1.ResourceCPU: resource.MustParse("1000m")}
	})
	one := warnWithSpec(warnSpec(warnImg2016), func(s *v1.PodSpec) {
		s.Containers[0].Resources.Requests = v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}
	})
	relabelled := warnDeployment("legacy", warnSpec(warnImg2016))
	relabelled.Labels = map[string]string{"tier": "web"}
	relabelled.Spec.Replicas = ptr.To[int32](3)
	generated := warnPod("", warnSpec(warnImg2016))
	generated.GenerateName = "batch-"
	generated.Namespace = ""
	mirror := warnPod("static", warnSpec(warnImg2016))
	mirror.Annotations = map[string]string{v1.MirrorPodAnnotationKey: "x", "kubectl.kubernetes.io/last-applied-configuration": `{"a":"\"b\""}`}
	bound := warnPod("bound", warnWithSpec(warnSpec(warnImg2016), func(s *v1.PodSpec) { s.NodeName = "w22" }))
	notController := warnPod("loose", warnSpec(warnImg2016))
	notController.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "c", UID: "2"}}
	cron := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "nightly"},
		Spec: batchv1.CronJobSpec{Schedule: "@daily", JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: v1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "n"}}, Spec: warnSpec(warnImg2016)}}}}}

	req := func(op admissionv1.Operation, resource string, obj, old runtime.Object) func(t *testing.T) *admissionv1.AdmissionRequest {
		return func(t *testing.T) *admissionv1.AdmissionRequest { return warnReview(t, op, resource, obj, old) }
	}
	return []warningsTest{
		{name: "a pod with every field read", req: req(admissionv1.Create, "pods", warnPod("full", full), nil)},
		{name: "a Deployment with every field read", req: req(admissionv1.Create, "deployments", warnDeployment("full", full), nil)},
		{name: "a HostProcess pod", req: req(admissionv1.Create, "pods", warnPod("hpc", hostProcess), nil)},
		{name: "a HostProcess container", req: req(admissionv1.Create, "pods", warnPod("hpc", containerHostProcess), nil)},
		{name: "tolerations that do not cover the taint", req: req(admissionv1.Create, "statefulsets",
			&appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "s"}, Spec: appsv1.StatefulSetSpec{Template: v1.PodTemplateSpec{Spec: untolerated}}}, nil)},
		{name: "an affinity on another OS", req: req(admissionv1.Create, "daemonsets",
			&appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "d"}, Spec: appsv1.DaemonSetSpec{Template: v1.PodTemplateSpec{Spec: pinnedLinux}}}, nil)},
		{name: "a CronJob that runs nowhere", req: req(admissionv1.Create, "cronjobs", cron, nil)},
		{name: "a CronJob's schedule changed", req: req(admissionv1.Update, "cronjobs", cron, func() *batchv1.CronJob {
			c := cron.DeepCopy()
			c.Spec.Schedule = "@hourly"
			return c
		}())},
		{name: "a generated name, the request's namespace", req: req(admissionv1.Create, "pods", generated, nil)},
		{name: "a mirror pod", req: req(admissionv1.Create, "pods", mirror, nil)},
		{name: "a bound pod", req: req(admissionv1.Create, "pods", bound, nil)},
		{name: "an owner that is not a controller", req: req(admissionv1.Create, "pods", notController, nil)},
		{name: "a pod's update", req: req(admissionv1.Update, "pods", warnPod("p", warnSpec(warnImg2016)), warnPod("p", warnSpec(warnImg2022)))},
		{name: "a scale and a label", req: req(admissionv1.Update, "deployments", relabelled, warnDeployment("legacy", warnSpec(warnImg2016)))},
		{name: "a change the warnings do not read", req: req(admissionv1.Update, "deployments", warnDeployment("legacy", withEnv), warnDeployment("legacy", warnSpec(warnImg2016)))},
		{name: "the same template in other words", req: req(admissionv1.Update, "deployments", warnDeployment("legacy", milli), warnDeployment("legacy", one))},
		{name: "an update without its old object", req: req(admissionv1.Update, "deployments", warnDeployment("legacy", warnSpec(warnImg2016)), nil)},
		{name: "an old object that does not decode", req: func(t *testing.T) *admissionv1.AdmissionRequest {
			r := warnReview(t, admissionv1.Update, "deployments", warnDeployment("legacy", warnSpec(warnImg2016)), warnDeployment("legacy", warnSpec(warnImg2016)))
			r.OldObject.Raw = []byte(`{"spec": 3}`)
			return r
		}},
		{name: "a workload without a template", req: func(t *testing.T) *admissionv1.AdmissionRequest {
			r := warnReview(t, admissionv1.Create, "jobs", warnDeployment("x", warnSpec(warnImg2016)), nil)
			r.Object.Raw = []byte(`{"metadata": {"name": "empty"}, "spec": {}}`)
			return r
		}},
		{name: "a deletion", req: req(admissionv1.Delete, "pods", nil, warnPod("p", warnSpec(warnImg2016)))},
		{name: "a subresource", req: func(t *testing.T) *admissionv1.AdmissionRequest {
			r := warnReview(t, admissionv1.Update, "deployments", warnDeployment("legacy", warnSpec(warnImg2016)), nil)
			r.SubResource = "scale"
			return r
		}},
		{name: "no object", req: func(t *testing.T) *admissionv1.AdmissionRequest {
			return warnReview(t, admissionv1.Create, "pods", nil, nil)
		}},
	}
}

// TestWarningsDecode: the warnings, which decode only what they read of a
// review, judge every request of TestWarnings and of decodeTests as they
// did decoding its objects whole: the same outcome, the same lines, the
// same fields of the pod; and the webhook answers a review's body as
// Admit answers its request.
func TestWarningsDecode(t *testing.T) {
	tests := warningsTests()
	for _, tt := range decodeTests() {
		tt.nodes = warnCluster(warnKarpenterPool("win19", "10.0.17763"))
		tests = append(tests, tt)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := New("windows-aware", scheme.DefaultArgs(), tt.nodes, nil)
			if err != nil {
				t.Fatal(err)
			}
			req := tt.req(t)
			wantOutcome, wantLines, wantPod := fullJudgement(w, req)
			resp, outcome := w.Admit(klog.Background(), req, false)
			if outcome != wantOutcome || !slices.Equal(resp.Warnings, wantLines) {
				t.Errorf("judged %s %q, decoded whole %s %q", outcome, resp.Warnings, wantOutcome, wantLines)
			}
			if wantPod != nil {
				kind := warnedKinds[req.Resource]
				obj, err := decodeWarnObject(req.Object.Raw)
				if err != nil {
					t.Fatal(err)
				}
				meta, spec := obj.template(kind)
				if meta == nil {
					meta, spec = &warnMeta{}, &warnPodSpec{}
				}
				got := meta.pod(spec)
				if got.Namespace == "" {
					got.Namespace = req.Namespace
				}
				if diff := cmp.Diff(readFields(wantPod), got); diff != "" {
					t.Errorf("the pod judged differs from the whole decode's (-whole +read):\n%s", diff)
				}
			}

			for _, enforce := range []bool{false, true} {
				want, _ := w.Admit(klog.Background(), req, enforce)
				body, err := json.Marshal(admissionv1.AdmissionReview{
					TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}, Request: req})
				if err != nil {
					t.Fatal(err)
				}
				rec := httptest.NewRecorder()
				w.Handler(klog.Background(), enforce).ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body)))
				if rec.Code != http.StatusOK {
					t.Fatalf("status %d: %s", rec.Code, rec.Body)
				}
				var got admissionv1.AdmissionReview
				if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
					t.Fatal(err)
				}
				if got.APIVersion != "admission.k8s.io/v1" || got.Kind != "AdmissionReview" {
					t.Errorf("answered as %s %s", got.APIVersion, got.Kind)
				}
				if diff := cmp.Diff(want, got.Response); diff != "" {
					t.Errorf("enforce=%v: the webhook's answer differs from Admit' (-Admit +webhook):\n%s", enforce, diff)
				}
			}
		})
	}
}

// TestWarningsHandlerBodies: a body that is not a review with a request
// gets 400, as before the warnings read only part of it.
func TestWarningsHandlerBodies(t *testing.T) {
	w, err := New("windows-aware", scheme.DefaultArgs(), warnCluster(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{``, `{`, `[]`, `{"request": 3}`, `{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"}`} {
		rec := httptest.NewRecorder()
		w.Handler(klog.Background(), false).ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", bytes.NewReader([]byte(body))))
		if rec.Code != http.StatusBadRequest {
			t.Errorf("%q: status %d, want 400", body, rec.Code)
		}
	}
}
