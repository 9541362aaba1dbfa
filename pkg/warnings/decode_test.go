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
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
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
	"github.com/windows-aware/windows-aware/pkg/workloadkind"
)

// fullDecode decodes an object of the warned kind of that name whole,
// into the API's type the table of package workloadkind names for it, and
// finds its pod template there (PodTemplateOf): how the warnings read a
// review before they read only what they judge, kept as the reference
// they must agree with.
func fullDecode(kind string, raw []byte) (metav1.Object, *metav1.ObjectMeta, *v1.PodSpec, error) {
	obj := workloadkind.Named(kind).New()
	if err := json.Unmarshal(raw, obj); err != nil {
		return nil, nil, nil, err
	}
	_, meta, spec := workloadkind.PodTemplateOf(obj)
	return obj, meta, spec, nil
}

// fullJudgement is what the warnings said of a request when they decoded
// its objects whole: the outcome (never refused: the refusal only words
// the same lines otherwise) and the lines; and the pod judged.
func fullJudgement(w *Warner, req *admissionv1.AdmissionRequest) (Outcome, []string, *v1.Pod) {
	kind, ok := warnedKinds[req.Resource]
	if !ok || req.SubResource != "" || (req.Operation != admissionv1.Create && req.Operation != admissionv1.Update) {
		return OutcomeSkipped, nil, nil
	}
	obj, meta, spec, err := fullDecode(kind, req.Object.Raw)
	if err != nil {
		return OutcomeError, nil, nil
	}
	if kind == workloadkind.Pod.Name {
		if req.Operation != admissionv1.Create || metav1.GetControllerOf(obj) != nil || spec.NodeName != "" ||
			obj.GetAnnotations()[v1.MirrorPodAnnotationKey] != "" {
			return OutcomeSkipped, nil, nil
		}
	} else if req.Operation == admissionv1.Update {
		if _, _, old, err := fullDecode(kind, req.OldObject.Raw); err == nil && apiequality.Semantic.DeepEqual(*old, *spec) {
			return OutcomeSkipped, nil, nil
		}
	}
	name := obj.GetName()
	if name == "" {
		name = obj.GetGenerateName() + "*"
	}
	pod := &v1.Pod{ObjectMeta: *meta, Spec: *spec}
	if pod.Namespace == "" {
		pod.Namespace = req.Namespace
	}
	lines := w.Warnings(kind+" "+name, pod)
	if len(lines) == 0 {
		return OutcomeClean, nil, pod
	}
	return OutcomeWarned, lines, pod
}

// fieldTree is a set of fields of an object's JSON, by their names: a
// field whose subtree is nil is read whole (a leaf); a list's subtree is
// that of its items.
type fieldTree map[string]fieldTree

// decodedTree is the fields the partial decoder reads of a pod, derived
// from its types by their JSON names: warnMeta's under metadata,
// warnPodSpec's under spec. A field of an API type (a v1.Toleration, a
// *v1.NodeSelector) is read whole.
func decodedTree() fieldTree {
	return fieldTree{"metadata": treeOf(reflect.TypeFor[warnMeta]()), "spec": treeOf(reflect.TypeFor[warnPodSpec]())}
}

// treeOf is the fields a decoder struct type reads.
func treeOf(t reflect.Type) fieldTree {
	tree := fieldTree{}
	for name, f := range jsonFields(t) {
		tree[name] = nil
		if elem := itemType(f.Type); elem.Kind() == reflect.Struct && isDecoderType(elem) {
			tree[name] = treeOf(elem)
		}
	}
	return tree
}

// jsonFields are the exported fields of a struct type by their JSON
// names, those of its embedded structs without a name inline.
func jsonFields(t reflect.Type) map[string]reflect.StructField {
	fields := map[string]reflect.StructField{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" {
			maps.Copy(fields, jsonFields(f.Type))
			continue
		}
		fields[name] = f
	}
	return fields
}

// itemType is t, or the type its pointer points to, or its list holds.
func itemType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	return t
}

// isDecoderType: t is one of the partial decoder's own types (this
// package's, or a struct of its fields declared in place), rather than
// one of the API's, which the decoder reads whole.
func isDecoderType(t reflect.Type) bool {
	return t.PkgPath() == reflect.TypeFor[warnObject]().PkgPath() || t.Name() == ""
}

// mismatches are the fields the decoder type reads that the API type has
// not, by their JSON names, or has of another type: a field of the API's
// type must be the API's, one of the decoder's own a pointer or a list
// where the API's is.
func mismatches(decoder, api reflect.Type, path string) []string {
	var bad []string
	apiFields := jsonFields(itemType(api))
	for name, d := range jsonFields(itemType(decoder)) {
		a, ok := apiFields[name]
		switch {
		case !ok:
			bad = append(bad, fmt.Sprintf("%s%s: %s has no such field", path, name, itemType(api)))
		case isDecoderType(itemType(d.Type)) && itemType(d.Type).Kind() == reflect.Struct:
			if (d.Type.Kind() == reflect.Slice) != (a.Type.Kind() == reflect.Slice) {
				bad = append(bad, fmt.Sprintf("%s%s: read as %s, the API's is %s", path, name, d.Type, a.Type))
				continue
			}
			bad = append(bad, mismatches(d.Type, a.Type, path+name+".")...)
		case d.Type != a.Type:
			bad = append(bad, fmt.Sprintf("%s%s: read as %s, the API's is %s", path, name, d.Type, a.Type))
		}
	}
	return bad
}

// project is the JSON v with only the fields of tree, and none that is
// empty (null, "", false, 0, {} or []): what the partial decoder must
// read of v, as the full decode reads it.
func project(v any, tree fieldTree) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for name, sub := range tree {
			if x, ok := v[name]; ok {
				if sub != nil {
					x = project(x, sub)
				}
				if x = dropEmpty(x); x != nil {
					out[name] = x
				}
			}
		}
		return dropEmpty(out)
	case []any:
		out := make([]any, len(v))
		for i, item := range v {
			out[i] = project(item, tree)
		}
		return dropEmpty(out)
	}
	return dropEmpty(v)
}

// dropEmpty is v without its empty fields, nil if v is empty itself: the
// decoders may write an empty field where the API's JSON has none.
func dropEmpty(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, item := range x {
			if item = dropEmpty(item); item == nil {
				delete(x, k)
			} else {
				x[k] = item
			}
		}
		if len(x) == 0 {
			return nil
		}
	case []any:
		for i, item := range x {
			x[i] = dropEmpty(item)
		}
		if len(x) == 0 {
			return nil
		}
	case string:
		if x == "" {
			return nil
		}
	case bool:
		if !x {
			return nil
		}
	case json.Number:
		if x == "0" {
			return nil
		}
	}
	return v
}

// jsonOf is v as untyped JSON, numbers as they are written.
func jsonOf(t *testing.T, v any) any {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// leaves are the paths of tree's leaves that v holds a value at, in any
// item of a list.
func leaves(v any, tree fieldTree, path string, seen map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for name, sub := range tree {
			x, ok := v[name]
			if !ok || dropEmpty(x) == nil {
				continue
			}
			if sub == nil {
				seen[path+name] = true
				continue
			}
			leaves(x, sub, path+name+".", seen)
		}
	case []any:
		for _, item := range v {
			leaves(item, tree, path, seen)
		}
	}
}

// allLeaves are the paths of tree's leaves.
func allLeaves(tree fieldTree, path string) []string {
	var out []string
	for name, sub := range tree {
		if sub == nil {
			out = append(out, path+name)
			continue
		}
		out = append(out, allLeaves(sub, path+name+".")...)
	}
	slices.Sort(out)
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

// generatedTests are generated requests of each kind of the table the
// warnings read, a creation and an update of each object: objects of the
// kind's API type (generate), the first generatedDense with every field
// set, the others with some fields set, whose judgement the fields set
// change more often. And the fields the decoder reads (decodedTree) that
// each kind's objects hold somewhere.
func generatedTests(t *testing.T) ([]warningsTest, map[string]map[string]bool) {
	const generatedDense, generatedPerKind, sparse = 8, 24, 0.4
	var tests []warningsTest
	held := map[string]map[string]bool{}
	for _, k := range workloadkind.All {
		if !k.Warnings {
			continue
		}
		held[k.Name] = map[string]bool{}
		for i := range generatedPerKind {
			nilChance := 0.0
			if i >= generatedDense {
				nilChance = sparse
			}
			obj, old := generate(k, int64(2*i), nilChance), generate(k, int64(2*i+1), nilChance)
			_, meta, spec, err := fullDecode(k.Name, jsonBytes(t, obj))
			if err != nil {
				t.Fatalf("a generated %s does not decode: %v", k.Name, err)
			}
			leaves(jsonOf(t, &v1.Pod{ObjectMeta: *meta, Spec: *spec}), decodedTree(), "", held[k.Name])
			for _, op := range []admissionv1.Operation{admissionv1.Create, admissionv1.Update} {
				tests = append(tests, warningsTest{
					name:  fmt.Sprintf("generated %s %s %d", op, k.Name, i),
					nodes: warnCluster(warnKarpenterPool("win19", "10.0.17763")),
					req: func(t *testing.T) *admissionv1.AdmissionRequest {
						req := &admissionv1.AdmissionRequest{UID: "u", Operation: op, Resource: k.RequestResource(), Namespace: "ns",
							Object: runtime.RawExtension{Raw: jsonBytes(t, obj)}}
						if op == admissionv1.Update {
							req.OldObject.Raw = jsonBytes(t, old)
						}
						return req
					},
				})
			}
		}
	}
	return tests, held
}

func jsonBytes(t *testing.T, v any) []byte {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestWarningsDecode: the partial decoder reads fields of the API's
// types, by their JSON names, as those types declare them; and the
// warnings, which decode only what they read of a review, judge every
// request of TestWarnings, of decodeTests and of generatedTests as they
// did decoding its objects whole, into the API's types of the kinds'
// table: the same outcome, the same lines, and of the pod judged, every
// field the decoder reads as the whole decode has it; the webhook answers
// a review's body as Admit answers its request. The generated objects of
// every kind hold every field the decoder reads.
func TestWarningsDecode(t *testing.T) {
	bad := mismatches(reflect.TypeFor[warnMeta](), reflect.TypeFor[metav1.ObjectMeta](), "metadata.")
	bad = append(bad, mismatches(reflect.TypeFor[warnPodSpec](), reflect.TypeFor[v1.PodSpec](), "spec.")...)
	for _, b := range bad {
		t.Errorf("the decoder reads %s", b)
	}
	tests := warningsTests()
	for _, tt := range decodeTests() {
		tt.nodes = warnCluster(warnKarpenterPool("win19", "10.0.17763"))
		tests = append(tests, tt)
	}
	generated, held := generatedTests(t)
	tests = append(tests, generated...)
	for kind, seen := range held {
		for _, leaf := range allLeaves(decodedTree(), "") {
			if !seen[leaf] {
				t.Errorf("no generated %s holds %s, which the decoder reads", kind, leaf)
			}
		}
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
				if diff := cmp.Diff(project(jsonOf(t, wantPod), decodedTree()), dropEmpty(jsonOf(t, got))); diff != "" {
					t.Errorf("the fields the decoder reads differ from the whole decode's (-whole +read):\n%s", diff)
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
