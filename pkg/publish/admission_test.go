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

package publish

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

func podRequest(t *testing.T, op admissionv1.Operation, pod *v1.Pod) *admissionv1.AdmissionRequest {
	t.Helper()
	raw, err := json.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	return &admissionv1.AdmissionRequest{
		UID:       "uid-1",
		Operation: op,
		Resource:  metav1.GroupVersionResource{Version: "v1", Resource: "pods"},
		Namespace: "ns",
		Object:    runtime.RawExtension{Raw: raw},
	}
}

// TestAdmit: the patch, applied to the pod as the API server applies it,
// gives what Publish writes; requests that are not a pod's CREATE, and
// pods that need nothing, get no patch; every pod is allowed.
func TestAdmit(t *testing.T) {
	p := newPublisher(t)
	tests := []struct {
		name      string
		op        admissionv1.Operation
		pod       *v1.Pod
		raw       []byte
		resource  string
		outcome   Outcome
		wantPatch bool
	}{
		{name: "create of a selector-less ltsc2019 pod", op: admissionv1.Create, pod: podOf(img2019), outcome: OutcomeStamped, wantPatch: true},
		{name: "create of a conflicting pod", op: admissionv1.Create, outcome: OutcomeConflict,
			pod: with(podOf(img2019), func(p *v1.Pod) { p.Spec.NodeSelector = map[string]string{v1.LabelOSStable: "linux"} })},
		{name: "create of a conflicting pod that arrives gated: the label alone", op: admissionv1.Create, outcome: OutcomeConflict, wantPatch: true,
			pod: with(podOf(img2019), func(p *v1.Pod) {
				p.Spec.NodeSelector = map[string]string{v1.LabelOSStable: "linux"}
				p.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "example.com/first"}, {Name: wellknown.GatePlatform}}
			})},
		{name: "create of another scheduler's pod that arrives gated: the label alone", op: admissionv1.Create, outcome: OutcomeSkipped, wantPatch: true,
			pod: with(fixture.Pod("p", "default-scheduler", img2019), func(p *v1.Pod) {
				p.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: wellknown.GatePlatform}}
			})},
		{name: "create of another scheduler's pod that arrives gated and labelled", op: admissionv1.Create, outcome: OutcomeSkipped,
			pod: with(fixture.Pod("p", "default-scheduler", img2019), func(p *v1.Pod) {
				p.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: wellknown.GatePlatform}}
				p.Labels = map[string]string{wellknown.LabelGated: "true"}
			})},
		{name: "update", op: admissionv1.Update, pod: podOf(img2019), outcome: OutcomeSkipped},
		{name: "delete", op: admissionv1.Delete, pod: podOf(img2019), outcome: OutcomeSkipped},
		{name: "another resource", op: admissionv1.Create, pod: podOf(img2019), resource: "configmaps", outcome: OutcomeSkipped},
		{name: "an object that is not a pod", op: admissionv1.Create, raw: []byte(`{"spec": 7}`), outcome: OutcomeError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := tt.pod
			if pod == nil {
				pod = &v1.Pod{}
			}
			req := podRequest(t, tt.op, pod)
			if tt.raw != nil {
				req.Object.Raw = tt.raw
			}
			if tt.resource != "" {
				req.Resource.Resource = tt.resource
			}
			resp, outcome := p.Admit(klog.Background(), req)
			if !resp.Allowed || resp.UID != req.UID {
				t.Fatalf("response %+v: want allowed, for the request's UID", resp)
			}
			if outcome != tt.outcome {
				t.Errorf("outcome %q, want %q", outcome, tt.outcome)
			}
			if (resp.Patch != nil) != tt.wantPatch {
				t.Fatalf("patch %s, want one: %v", resp.Patch, tt.wantPatch)
			}
			if !tt.wantPatch {
				return
			}
			if resp.PatchType == nil || *resp.PatchType != admissionv1.PatchTypeJSONPatch {
				t.Fatalf("patch type %v, want JSONPatch", resp.PatchType)
			}
			patch, err := jsonpatch.DecodePatch(resp.Patch)
			if err != nil {
				t.Fatalf("patch %s: %v", resp.Patch, err)
			}
			patched, err := patch.Apply(req.Object.Raw)
			if err != nil {
				t.Fatalf("applying %s: %v", resp.Patch, err)
			}
			var got v1.Pod
			if err := json.Unmarshal(patched, &got); err != nil {
				t.Fatal(err)
			}
			want := pod.DeepCopy()
			p.Publish(want)
			if diff := cmp.Diff(want, &got); diff != "" {
				t.Errorf("patched pod (-Publish +patch):\n%s", diff)
			}
		})
	}
}

// TestPatchKeepsUnknownFields: a field this build does not know of (from a
// newer API server) is neither removed nor touched by the patch.
func TestPatchKeepsUnknownFields(t *testing.T) {
	p := newPublisher(t)
	req := podRequest(t, admissionv1.Create, podOf(img2019))
	var obj map[string]any
	if err := json.Unmarshal(req.Object.Raw, &obj); err != nil {
		t.Fatal(err)
	}
	obj["spec"].(map[string]any)["futureField"] = map[string]any{"x": 1.0}
	req.Object.Raw, _ = json.Marshal(obj)
	resp, _ := p.Admit(klog.Background(), req)
	patch, err := jsonpatch.DecodePatch(resp.Patch)
	if err != nil {
		t.Fatal(err)
	}
	patched, err := patch.Apply(req.Object.Raw)
	if err != nil {
		t.Fatal(err)
	}
	var after map[string]any
	if err := json.Unmarshal(patched, &after); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"x": 1.0}, after["spec"].(map[string]any)["futureField"]); diff != "" {
		t.Errorf("futureField after the patch (-want +got):\n%s", diff)
	}
}

// TestHandler: the webhook speaks AdmissionReview v1 and counts outcomes.
func TestHandler(t *testing.T) {
	p := newPublisher(t)
	srv := httptest.NewServer(p.Handler(klog.Background()))
	defer srv.Close()

	review := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request:  podRequest(t, admissionv1.Create, podOf(img2019)),
	}
	body, _ := json.Marshal(review)
	resp, err := http.Post(srv.URL, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out admissionv1.AdmissionReview
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if out.Kind != "AdmissionReview" || out.APIVersion != "admission.k8s.io/v1" || out.Response == nil ||
		out.Response.UID != "uid-1" || !out.Response.Allowed || len(out.Response.Patch) == 0 {
		t.Errorf("review %+v: want an allowed v1 response for uid-1 with a patch", out)
	}

	for _, bad := range []string{"", "{}", "not json"} {
		resp, err := http.Post(srv.URL, "application/json", bytes.NewReader([]byte(bad)))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("body %q: status %d, want 400", bad, resp.StatusCode)
		}
	}
}
