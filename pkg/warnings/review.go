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
	"net/http"
	"slices"
	"strings"
	"sync"

	admissionv1 "k8s.io/api/admission/v1"
	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-base/metrics"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	"github.com/windows-aware/windows-aware/pkg/reviewgate"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
	"github.com/windows-aware/windows-aware/pkg/workloadkind"
)

// Outcome is what the warnings webhook did with a request.
type Outcome string

const (
	// OutcomeClean: the pod or template runs somewhere; no warning.
	OutcomeClean Outcome = "clean"
	// OutcomeWarned: admitted with warnings.
	OutcomeWarned Outcome = "warned"
	// OutcomeRefused: refused, in a namespace labelled wellknown.LabelEnforce=true.
	OutcomeRefused Outcome = "refused"
	// OutcomeSkipped: not looked at (not a CREATE or a template change,
	// a pod a controller made from a template already warned about, a
	// bound or mirror pod, another resource).
	OutcomeSkipped Outcome = "skipped"
	// OutcomeError: the object could not be read; admitted.
	OutcomeError Outcome = "error"
)

// Reviews counts the requests the warnings webhook answered.
var Reviews = metrics.NewCounterVec(
	&metrics.CounterOpts{
		Subsystem:      "windows_aware",
		Name:           "admission_warnings_total",
		Help:           "Requests the warnings webhook answered, by outcome: clean, warned, refused, skipped, error. Only a namespace labelled windows-aware.x-k8s.io/enforce=true sees refusals.",
		StabilityLevel: metrics.ALPHA,
	},
	[]string{"outcome"},
)

var registerOnce sync.Once

// RegisterMetrics registers Reviews in registry; later calls
// do nothing.
func RegisterMetrics(registry metrics.KubeRegistry) {
	registerOnce.Do(func() {
		registry.MustRegister(Reviews)
		for _, o := range []Outcome{OutcomeClean, OutcomeWarned, OutcomeRefused, OutcomeSkipped, OutcomeError} {
			Reviews.WithLabelValues(string(o))
		}
	})
}

// warnedKinds are the names of the kinds whose pod template the warnings
// read (workloadkind's Warnings), by resource.
var warnedKinds = workloadkind.ByResource(func(k *workloadkind.Kind) (string, bool) { return k.Name, k.Warnings })

// Admit answers a request to create a pod or a workload, or to
// change a workload's pod template: allowed, with Warnings' lines when the
// pod can run nowhere; refused with them instead when enforce is set (the
// request is from a namespace labelled wellknown.LabelEnforce=true). A request it
// cannot read is allowed: the warnings are an aid, and their webhook's
// failurePolicy is Ignore.
func (w *Warner) Admit(logger klog.Logger, req *admissionv1.AdmissionRequest, enforce bool) (*admissionv1.AdmissionResponse, Outcome) {
	r := &warnRequest{UID: req.UID, Kind: req.Kind, Resource: req.Resource, SubResource: req.SubResource,
		Name: req.Name, Namespace: req.Namespace, Operation: req.Operation, DryRun: req.DryRun}
	var err error
	r.Object, err = decodeWarnObject(req.Object.Raw)
	if err == nil {
		// An old object that does not decode is as none: the update is
		// judged.
		r.OldObject, _ = decodeWarnObject(req.OldObject.Raw)
	}
	return w.admit(logger, r, err, enforce)
}

// decodeWarnObject reads what the warnings read of an object; an error
// where there is none.
func decodeWarnObject(raw []byte) (*warnObject, error) {
	var o warnObject
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, err
	}
	return &o, nil
}

// admit is Admit of a request read; decodeErr is why its
// object could not be read.
func (w *Warner) admit(logger klog.Logger, req *warnRequest, decodeErr error, enforce bool) (resp *admissionv1.AdmissionResponse, outcome Outcome) {
	resp = &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true}
	defer func() {
		if r := recover(); r != nil {
			logger.Error(fmt.Errorf("%v", r), "Warning panicked; admitting the object", "namespace", req.Namespace, "name", req.Name)
			resp, outcome = &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true}, OutcomeError
		}
	}()
	kind, ok := warnedKinds[req.Resource]
	if !ok || req.SubResource != "" || (req.Operation != admissionv1.Create && req.Operation != admissionv1.Update) {
		return resp, OutcomeSkipped
	}
	if decodeErr != nil {
		logger.Error(decodeErr, "Cannot read the object; admitting it without warnings", "resource", req.Resource.Resource, "namespace", req.Namespace, "name", req.Name)
		return resp, OutcomeError
	}
	obj := req.Object
	meta, spec := obj.template(kind)
	if meta == nil {
		// A workload without a template: as the zero template.
		meta, spec = &warnMeta{}, &warnPodSpec{}
	}
	if kind == workloadkind.Pod.Name {
		// A pod its controller made was warned about as a template; a
		// bound or mirror pod skips the scheduler; an update cannot
		// change what a pod runs on.
		if req.Operation != admissionv1.Create || !warnsOfPod(meta.OwnerReferences, spec.NodeName, meta.Annotations) {
			return resp, OutcomeSkipped
		}
	} else if req.Operation == admissionv1.Update && req.OldObject != nil && sameTemplateSpec(obj.templateSpecRaw(kind), req.OldObject.templateSpecRaw(kind)) {
		// An update that leaves the template as it was (a scale, a
		// label) was warned about when the template was written.
		return resp, OutcomeSkipped
	}
	name := workloadkind.ObjectName(obj.Metadata.Name, obj.Metadata.GenerateName)
	pod := meta.pod(spec)
	if pod.Namespace == "" {
		pod.Namespace = req.Namespace
	}
	lines := w.Warnings(kind+" "+name, pod)
	if len(lines) == 0 {
		return resp, OutcomeClean
	}
	logger.V(2).Info("Warned", "kind", kind, "namespace", req.Namespace, "name", name, "enforce", enforce, "warnings", lines)
	if !enforce {
		resp.Warnings = lines
		return resp, OutcomeWarned
	}
	// The warnings again as one text: a sentence cut over several
	// warnings joined, sentences apart.
	var msg strings.Builder
	for i, l := range lines {
		l = strings.TrimPrefix(l, warningPrefix)
		if rest, ok := strings.CutPrefix(l, continuation); ok {
			msg.WriteString(" " + rest)
			continue
		}
		if i > 0 {
			msg.WriteString("; ")
		}
		msg.WriteString(l)
	}
	resp.Allowed = false
	resp.Result = &metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden,
		Message: fmt.Sprintf("namespace %s is labelled %s=true: %s", req.Namespace, wellknown.LabelEnforce, msg.String()),
	}
	return resp, OutcomeRefused
}

// warnsOfPod reports whether the warnings judge a pod created with these
// owners, node and annotations: a pod its controller made was warned
// about as a template; a bound or mirror pod skips the scheduler.
func warnsOfPod(owners []metav1.OwnerReference, nodeName string, annotations map[string]string) bool {
	return !hasController(owners) && nodeName == "" && annotations[v1.MirrorPodAnnotationKey] == ""
}

// PodWarnings is the warnings webhook's answer to the CREATE of pod in
// namespace, for a path that has read the pod already (the publish
// webhook's /mutate/warnings), counted in Reviews as the warnings
// webhook counts it: clean or warned. A pod the warnings do not judge (see
// warnsOfPod) gets none and is not counted, as the warnings webhook's
// configuration never sends it one. A panic costs the warnings, never the
// caller's answer.
func (w *Warner) PodWarnings(logger klog.Logger, namespace string, pod *v1.Pod) (lines []string) {
	if !warnsOfPod(pod.OwnerReferences, pod.Spec.NodeName, pod.Annotations) {
		return nil
	}
	name := workloadkind.ObjectName(pod.Name, pod.GenerateName)
	defer func() {
		if r := recover(); r != nil {
			logger.Error(fmt.Errorf("%v", r), "Warning panicked; answering without warnings", "namespace", namespace, "name", name)
			lines = nil
			Reviews.WithLabelValues(string(OutcomeError)).Inc()
		}
	}()
	judged := pod
	if pod.Namespace == "" {
		// The API server fills a pod's namespace in after the webhooks.
		in := *pod
		in.Namespace = namespace
		judged = &in
	}
	lines = w.Warnings("Pod "+name, judged)
	if len(lines) == 0 {
		Reviews.WithLabelValues(string(OutcomeClean)).Inc()
		return nil
	}
	logger.V(2).Info("Warned", "kind", "Pod", "namespace", namespace, "name", name, "enforce", false, "warnings", lines)
	Reviews.WithLabelValues(string(OutcomeWarned)).Inc()
	return lines
}

// hasController is metav1.GetControllerOf's test: an owner reference
// marked as the controller.
func hasController(refs []metav1.OwnerReference) bool {
	return slices.ContainsFunc(refs, func(r metav1.OwnerReference) bool { return ptr.Deref(r.Controller, false) })
}

// sameTemplateSpec reports whether two texts of a template's spec say the
// same: the same text does (the API server writes both objects alike), and
// others are decoded in full and compared as the API server's types.
func sameTemplateSpec(raw, oldRaw []byte) bool {
	if raw != nil && bytes.Equal(raw, oldRaw) {
		return true
	}
	var spec, old v1.PodSpec
	if raw != nil {
		if err := json.Unmarshal(raw, &spec); err != nil {
			return false
		}
	}
	if oldRaw != nil {
		if err := json.Unmarshal(oldRaw, &old); err != nil {
			return false
		}
	}
	return apiequality.Semantic.DeepEqual(old, spec)
}

// Handler serves AdmissionReview v1 requests by Admit, counting each in
// Reviews. enforce is set on the path the webhook configuration calls for
// namespaces labelled wellknown.LabelEnforce=true. A review is read as the warnings
// read it (decode.go); one it does not read so (no request, no object, an
// error) is read again in full, and answered as ever.
func (w *Warner) Handler(logger klog.Logger, enforce bool) http.Handler {
	s := &reviewgate.Server[Outcome]{
		Admit: func(logger klog.Logger, req *admissionv1.AdmissionRequest) (*admissionv1.AdmissionResponse, Outcome) {
			return w.Admit(logger, req, enforce)
		},
		Read: func(logger klog.Logger, body []byte) (metav1.TypeMeta, *admissionv1.AdmissionResponse, Outcome, bool) {
			var review warnAdmissionReview
			if err := json.Unmarshal(body, &review); err != nil || review.Request == nil || review.Request.Object == nil {
				return metav1.TypeMeta{}, nil, "", false
			}
			resp, outcome := w.admit(logger, review.Request, nil, enforce)
			return review.TypeMeta, resp, outcome, true
		},
		Counter: Reviews,
		Error:   OutcomeError,
	}
	return s.Handler(logger)
}
