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
	"fmt"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
)

// AdmitTemplate answers an admission request for a workload
// (workloadResources) created or updated in a namespace that opts in:
// allowed, always, with a JSON patch of what PublishTemplate wrote when it
// wrote something, and a warning when it left a template unchanged for a
// reason the user can act on. Whatever goes wrong (a request it cannot
// read, a patch that would not apply), the workload is admitted unchanged,
// with a warning that says why: writing the template is an aid, never a
// reason to refuse a workload or to change it half-way.
func (p *Publisher) AdmitTemplate(logger klog.Logger, req *admissionv1.AdmissionRequest) (resp *admissionv1.AdmissionResponse, outcome Outcome) {
	resp = &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true}
	unchanged := func(format string, args ...any) (*admissionv1.AdmissionResponse, Outcome) {
		msg := fmt.Sprintf(format, args...)
		return &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true, Warnings: []string{
			fmt.Sprintf("windows-aware: admitted %s %s/%s unchanged: %s", req.Kind.Kind, req.Namespace, req.Name, msg),
		}}, OutcomeError
	}
	defer func() {
		if r := recover(); r != nil {
			logger.Error(fmt.Errorf("%v", r), "Writing the template panicked; admitting the workload unchanged", "resource", req.Resource.Resource, "namespace", req.Namespace, "name", req.Name)
			resp, outcome = unchanged("its pod template could not be read")
		}
	}()
	newWorkload, known := workloadResources[req.Resource]
	if !known || req.SubResource != "" || (req.Operation != admissionv1.Create && req.Operation != admissionv1.Update) {
		return resp, OutcomeSkipped
	}
	w := newWorkload()
	if err := json.Unmarshal(req.Object.Raw, w); err != nil {
		logger.Error(err, "Cannot read the workload; admitting it unchanged", "resource", req.Resource.Resource, "namespace", req.Namespace, "name", req.Name)
		return unchanged("its pod template could not be read: %v", err)
	}
	written := newWorkload()
	if req.Operation == admissionv1.Update {
		if err := json.Unmarshal(req.OldObject.Raw, written); err != nil {
			logger.Error(err, "Cannot read the old workload; admitting it unchanged", "resource", req.Resource.Resource, "namespace", req.Namespace, "name", req.Name)
			return unchanged("its previous pod template could not be read: %v", err)
		}
	}
	var old *v1.PodTemplateSpec // nil at a CREATE
	if req.Operation == admissionv1.Update {
		old = templateOf(written)
	}
	changed := w.DeepCopyObject().(workload)
	rec, outcome, warning, reason := p.publishTemplate(changed, templateOf(changed), old)
	if warning != "" {
		resp.Warnings = append(resp.Warnings, warning)
	}
	if apiequality.Semantic.DeepEqual(w, changed) {
		logger.V(4).Info("Left the template", "kind", kindOf(w), "name", objectName(w), "outcome", outcome, "reason", reason)
		return resp, outcome
	}
	patch, err := templatePatch(req.Object.Raw, w, changed, newWorkload())
	if err != nil {
		logger.Error(err, "Cannot write the patch; admitting the workload unchanged", "kind", kindOf(w), "name", objectName(w))
		return unchanged("the patch of its pod template could not be written: %v", err)
	}
	resp.Patch = patch
	resp.PatchType = ptr.To(admissionv1.PatchTypeJSONPatch)
	logger.V(2).Info("Wrote the template", "kind", kindOf(w), "name", objectName(w), "operation", req.Operation, "outcome", outcome, "wrote", rec.String())
	return resp, outcome
}

// templatePatch is the RFC 6902 patch from original to changed, checked
// against the request's own object: applied to raw, it must give an object
// that reads back, into the empty check, as changed, or no patch is sent, so that the API server
// is never handed a patch it would refuse or apply otherwise.
func templatePatch(raw []byte, original, changed, check workload) ([]byte, error) {
	patch, err := createPatchOf(original, changed)
	if err != nil {
		return nil, err
	}
	decoded, err := jsonpatch.DecodePatch(patch)
	if err != nil {
		return nil, err
	}
	applied, err := decoded.Apply(raw)
	if err != nil {
		return nil, fmt.Errorf("the patch does not apply to the request's object: %w", err)
	}
	if err := json.Unmarshal(applied, check); err != nil {
		return nil, fmt.Errorf("the patched object does not read: %w", err)
	}
	if !apiequality.Semantic.DeepEqual(check, changed) {
		return nil, fmt.Errorf("the patched object is not the one written")
	}
	return patch, nil
}
