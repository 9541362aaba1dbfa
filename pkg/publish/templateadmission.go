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
	"fmt"
	"strings"

	"gomodules.xyz/jsonpatch/v2"
	admissionv1 "k8s.io/api/admission/v1"
	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	"github.com/windows-aware/windows-aware/pkg/workloadkind"
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
	kind, known := workloadResources[req.Resource]
	if !known || req.SubResource != "" || (req.Operation != admissionv1.Create && req.Operation != admissionv1.Update) {
		return resp, OutcomeSkipped
	}
	w := kind.New()
	if err := json.Unmarshal(req.Object.Raw, w); err != nil {
		logger.Error(err, "Cannot read the workload; admitting it unchanged", "resource", req.Resource.Resource, "namespace", req.Namespace, "name", req.Name)
		return unchanged("its pod template could not be read: %v", err)
	}
	written := kind.New()
	if req.Operation == admissionv1.Update {
		if err := json.Unmarshal(req.OldObject.Raw, written); err != nil {
			logger.Error(err, "Cannot read the old workload; admitting it unchanged", "resource", req.Resource.Resource, "namespace", req.Namespace, "name", req.Name)
			return unchanged("its previous pod template could not be read: %v", err)
		}
	}
	var old workload // nil at a CREATE
	if req.Operation == admissionv1.Update {
		old = written
	}
	// PublishTemplate writes into w itself: the fields it may write are
	// kept, as JSON, before and after, and the patch is their difference,
	// so that the workload is decoded once and never copied whole.
	before, err := writtenFieldsOf(w)
	if err != nil {
		return unchanged("its pod template could not be read: %v", err)
	}
	rec, outcome, warning, reason := p.publishTemplate(w, templateOf(w), old)
	if warning != "" {
		resp.Warnings = append(resp.Warnings, warning)
	}
	after, err := writtenFieldsOf(w)
	if err != nil {
		return unchanged("its pod template could not be written: %v", err)
	}
	if bytes.Equal(before, after) {
		logger.V(4).Info("Left the template", "kind", kindOf(w), "name", objectName(w), "outcome", outcome, "reason", reason)
		return resp, outcome
	}
	patch, err := templatePatch(req.Object.Raw, w, before, after)
	if err != nil {
		logger.Error(err, "Cannot write the patch; admitting the workload unchanged", "kind", kindOf(w), "name", objectName(w))
		return unchanged("the patch of its pod template could not be written: %v", err)
	}
	resp.Patch = patch
	resp.PatchType = ptr.To(admissionv1.PatchTypeJSONPatch)
	logger.V(2).Info("Wrote the template", "kind", kindOf(w), "name", objectName(w), "operation", req.Operation, "outcome", outcome, "wrote", rec.String())
	return resp, outcome
}

// writtenFields is what PublishTemplate may write into a workload, at the
// paths it has in the workload's JSON: the workload's annotations (the
// record), and its pod template's node selector and affinity.
type writtenFields struct {
	Metadata struct {
		Annotations map[string]string `json:"annotations,omitempty"`
	} `json:"metadata"`
	Spec writtenSpec `json:"spec"`
}

// writtenSpec holds the pod template at each of the kinds' TemplatePaths:
// .spec.template, or a CronJob's .spec.jobTemplate.spec.template. Read
// from a request's object, it holds every path, so that an object that
// holds the fields at a path not its kind's is never patched.
type writtenSpec struct {
	Template    *writtenTemplate `json:"template,omitempty"`
	JobTemplate *struct {
		Spec struct {
			Template *writtenTemplate `json:"template,omitempty"`
		} `json:"spec"`
	} `json:"jobTemplate,omitempty"`
}

type writtenTemplate struct {
	Spec *struct {
		NodeSelector map[string]string `json:"nodeSelector,omitempty"`
		Affinity     *v1.Affinity      `json:"affinity,omitempty"`
	} `json:"spec,omitempty"`
}

// writtenFieldsOf is w's writtenFields, as JSON, the template at its
// kind's TemplatePath.
func writtenFieldsOf(w workload) ([]byte, error) {
	var f writtenFields
	f.Metadata.Annotations = w.GetAnnotations()
	tmpl := templateOf(w)
	t := &writtenTemplate{Spec: &struct {
		NodeSelector map[string]string `json:"nodeSelector,omitempty"`
		Affinity     *v1.Affinity      `json:"affinity,omitempty"`
	}{NodeSelector: tmpl.Spec.NodeSelector, Affinity: tmpl.Spec.Affinity}}
	switch path := workloadOf(w).TemplatePath; path {
	case workloadkind.SpecTemplate:
		f.Spec.Template = t
	case workloadkind.JobSpecTemplate:
		f.Spec.JobTemplate = &struct {
			Spec struct {
				Template *writtenTemplate `json:"template,omitempty"`
			} `json:"spec"`
		}{}
		f.Spec.JobTemplate.Spec.Template = t
	default:
		return nil, fmt.Errorf("no pod template is written at %s", path)
	}
	return json.Marshal(&f)
}

// templatePatch is the RFC 6902 patch from before to after, two
// writtenFieldsOf w, checked against the request's own object, raw: the
// patch touches nothing but the written fields, and raw holds at their
// paths what before holds (the fields read from raw the way w was), so
// that applied to raw it gives after there and leaves the rest, unknown
// fields included, as the user sent it. The API server is never handed a
// patch it would refuse or apply otherwise, and the check reads raw
// without decoding its containers.
func templatePatch(raw []byte, w workload, before, after []byte) ([]byte, error) {
	ops, err := jsonpatch.CreatePatch(before, after)
	if err != nil {
		return nil, err
	}
	template := workloadOf(w).TemplatePointer() + "/spec/"
	for _, op := range ops {
		if !strings.HasPrefix(op.Path, "/metadata/annotations") && !strings.HasPrefix(op.Path, template+"nodeSelector") &&
			!strings.HasPrefix(op.Path, template+"affinity") {
			return nil, fmt.Errorf("the patch would change %s", op.Path)
		}
	}
	var inRaw, written writtenFields
	if err := json.Unmarshal(raw, &inRaw); err != nil {
		return nil, fmt.Errorf("the request's object does not read: %w", err)
	}
	if err := json.Unmarshal(before, &written); err != nil {
		return nil, err
	}
	if !apiequality.Semantic.DeepEqual(inRaw, written) {
		return nil, fmt.Errorf("the request's object does not hold what was read of it")
	}
	return json.Marshal(ops)
}
