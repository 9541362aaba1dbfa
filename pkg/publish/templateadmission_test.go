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
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"

	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

var daemonSetsResource = metav1.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"}

func workloadRequest(t *testing.T, op admissionv1.Operation, obj, old runtime.Object) *admissionv1.AdmissionRequest {
	t.Helper()
	req := &admissionv1.AdmissionRequest{
		UID: "uid-2", Operation: op, Resource: daemonSetsResource,
		Kind: metav1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "DaemonSet"}, Namespace: "monitoring", Name: "agent",
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	req.Object.Raw = raw
	if old != nil {
		if req.OldObject.Raw, err = json.Marshal(old); err != nil {
			t.Fatal(err)
		}
	}
	return req
}

// applied is the request's object after the response's patch, as the API
// server applies it.
func applied(t *testing.T, req *admissionv1.AdmissionRequest, resp *admissionv1.AdmissionResponse) *appsv1.DaemonSet {
	t.Helper()
	raw := req.Object.Raw
	if len(resp.Patch) > 0 {
		patch, err := jsonpatch.DecodePatch(resp.Patch)
		if err != nil {
			t.Fatal(err)
		}
		if raw, err = patch.Apply(raw); err != nil {
			t.Fatal(err)
		}
	}
	var ds appsv1.DaemonSet
	if err := json.Unmarshal(raw, &ds); err != nil {
		t.Fatal(err)
	}
	return &ds
}

// TestAdmitTemplate: the webhook's answers for workloads. Every workload
// is allowed; a patch comes only with a change, and applied as the API
// server applies it gives what PublishTemplate writes; what cannot be read
// is admitted unchanged with a warning that says why.
func TestAdmitTemplate(t *testing.T) {
	original := daemonSet(agentTemplate())
	written := original.DeepCopy()
	written.Spec.Template = stamped(agentTemplate(), "linux", nil)
	written.Annotations = map[string]string{wellknown.AnnotationTemplate: (&wellknown.Record{Source: "default", OS: "linux"}).String()}
	garbled := workloadRequest(t, admissionv1.Create, original, nil)
	garbled.Object.Raw = []byte(`{"spec":{"template":"not a template"}}`)
	garbledOld := workloadRequest(t, admissionv1.Update, original, original)
	garbledOld.OldObject.Raw = []byte(`[]`)
	status := workloadRequest(t, admissionv1.Update, original, original)
	status.SubResource = "status"
	pods := workloadRequest(t, admissionv1.Create, original, nil)
	pods.Resource = podResource

	tests := []struct {
		name        string
		req         *admissionv1.AdmissionRequest
		outcome     Outcome
		want        *appsv1.DaemonSet // the object after the patch; nil: no patch, as want original
		wantPatch   bool
		wantWarning string
	}{
		{name: "CREATE: written", req: workloadRequest(t, admissionv1.Create, original, nil), outcome: OutcomeStamped, want: written, wantPatch: true},
		{name: "UPDATE of a template unchanged: no patch", req: workloadRequest(t, admissionv1.Update, original, original), outcome: OutcomeSkipped, want: original},
		{name: "UPDATE re-applying the original manifest: back to what was written", req: workloadRequest(t, admissionv1.Update, original, written), outcome: OutcomeStamped, want: written, wantPatch: true},
		{name: "UPDATE of what was written: no patch", req: workloadRequest(t, admissionv1.Update, written, written), outcome: OutcomeSkipped, want: written},
		{name: "DELETE: nothing", req: workloadRequest(t, admissionv1.Delete, original, nil), outcome: OutcomeSkipped, want: original},
		{name: "the status subresource: nothing", req: status, outcome: OutcomeSkipped, want: original},
		{name: "not a workload: nothing", req: pods, outcome: OutcomeSkipped, want: original},
		{name: "an object it cannot read: unchanged, with why", req: garbled, outcome: OutcomeError, wantWarning: "admitted DaemonSet monitoring/agent unchanged: its pod template could not be read"},
		{name: "an old object it cannot read: unchanged, with why", req: garbledOld, outcome: OutcomeError, want: original, wantWarning: "its previous pod template could not be read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, outcome := newPublisher(t).AdmitTemplate(klog.Background(), tt.req)
			if !resp.Allowed || resp.UID != tt.req.UID {
				t.Errorf("response %+v: want allowed, for %s", resp, tt.req.UID)
			}
			if outcome != tt.outcome {
				t.Errorf("outcome %q, want %q", outcome, tt.outcome)
			}
			if (tt.wantWarning == "") != (len(resp.Warnings) == 0) || tt.wantWarning != "" && !strings.Contains(strings.Join(resp.Warnings, "\n"), tt.wantWarning) {
				t.Errorf("warnings %q, want one with %q", resp.Warnings, tt.wantWarning)
			}
			if tt.wantPatch != (resp.Patch != nil) {
				t.Errorf("patch %s, want one: %v", resp.Patch, tt.wantPatch)
			}
			if tt.want == nil {
				return
			}
			if diff := cmp.Diff(tt.want, applied(t, tt.req, resp)); diff != "" {
				t.Errorf("the workload after the patch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTemplatePatchKeepsUnknownFields: fields this build does not know,
// sent by a newer API server, survive the patch.
func TestTemplatePatchKeepsUnknownFields(t *testing.T) {
	req := workloadRequest(t, admissionv1.Create, daemonSet(agentTemplate()), nil)
	var obj map[string]any
	if err := json.Unmarshal(req.Object.Raw, &obj); err != nil {
		t.Fatal(err)
	}
	obj["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["futureField"] = "x"
	req.Object.Raw, _ = json.Marshal(obj)
	resp, _ := newPublisher(t).AdmitTemplate(klog.Background(), req)
	patch, err := jsonpatch.DecodePatch(resp.Patch)
	if err != nil {
		t.Fatal(err)
	}
	patched, err := patch.Apply(req.Object.Raw)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(patched), `"futureField":"x"`) || !strings.Contains(string(patched), `"kubernetes.io/os":"linux"`) {
		t.Errorf("patched object %s: want futureField kept and the selector written", patched)
	}
}
