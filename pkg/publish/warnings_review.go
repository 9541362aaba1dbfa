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
	"io"
	"net/http"
	"strings"
	"sync"

	admissionv1 "k8s.io/api/admission/v1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-base/metrics"
	"k8s.io/klog/v2"
)

// WarningOutcome is what the warnings webhook did with a request.
type WarningOutcome string

const (
	// WarningClean: the pod or template runs somewhere; no warning.
	WarningClean WarningOutcome = "clean"
	// WarningWarned: admitted with warnings.
	WarningWarned WarningOutcome = "warned"
	// WarningRefused: refused, in a namespace labelled LabelEnforce=true.
	WarningRefused WarningOutcome = "refused"
	// WarningSkipped: not looked at (not a CREATE or a template change,
	// a pod a controller made from a template already warned about, a
	// bound or mirror pod, another resource).
	WarningSkipped WarningOutcome = "skipped"
	// WarningError: the object could not be read; admitted.
	WarningError WarningOutcome = "error"
)

// WarningReviews counts the requests the warnings webhook answered.
var WarningReviews = metrics.NewCounterVec(
	&metrics.CounterOpts{
		Subsystem:      "windows_aware",
		Name:           "admission_warnings_total",
		Help:           "Requests the warnings webhook answered, by outcome: clean, warned, refused, skipped, error. Only a namespace labelled windows-aware.x-k8s.io/enforce=true sees refusals.",
		StabilityLevel: metrics.ALPHA,
	},
	[]string{"outcome"},
)

var registerWarningsOnce sync.Once

// RegisterWarningMetrics registers WarningReviews in registry; later calls
// do nothing.
func RegisterWarningMetrics(registry metrics.KubeRegistry) {
	registerWarningsOnce.Do(func() {
		registry.MustRegister(WarningReviews)
		for _, o := range []WarningOutcome{WarningClean, WarningWarned, WarningRefused, WarningSkipped, WarningError} {
			WarningReviews.WithLabelValues(string(o))
		}
	})
}

// warnedKinds are the kinds whose pod template the warnings read, by
// resource: how to decode one and find its template.
var warnedKinds = map[metav1.GroupVersionResource]struct {
	kind     string
	template func(raw []byte) (metav1.Object, *v1.PodTemplateSpec, error)
}{
	{Group: "apps", Version: "v1", Resource: "deployments"}:  {"Deployment", decodeTemplate(func(o *appsv1.Deployment) *v1.PodTemplateSpec { return &o.Spec.Template })},
	{Group: "apps", Version: "v1", Resource: "statefulsets"}: {"StatefulSet", decodeTemplate(func(o *appsv1.StatefulSet) *v1.PodTemplateSpec { return &o.Spec.Template })},
	{Group: "apps", Version: "v1", Resource: "daemonsets"}:   {"DaemonSet", decodeTemplate(func(o *appsv1.DaemonSet) *v1.PodTemplateSpec { return &o.Spec.Template })},
	{Group: "apps", Version: "v1", Resource: "replicasets"}:  {"ReplicaSet", decodeTemplate(func(o *appsv1.ReplicaSet) *v1.PodTemplateSpec { return &o.Spec.Template })},
	{Group: "batch", Version: "v1", Resource: "jobs"}:        {"Job", decodeTemplate(func(o *batchv1.Job) *v1.PodTemplateSpec { return &o.Spec.Template })},
	{Group: "batch", Version: "v1", Resource: "cronjobs"}: {"CronJob", decodeTemplate(func(o *batchv1.CronJob) *v1.PodTemplateSpec {
		return &o.Spec.JobTemplate.Spec.Template
	})},
	{Version: "v1", Resource: "pods"}: {"Pod", func(raw []byte) (metav1.Object, *v1.PodTemplateSpec, error) {
		var pod v1.Pod
		if err := json.Unmarshal(raw, &pod); err != nil {
			return nil, nil, err
		}
		return &pod, &v1.PodTemplateSpec{ObjectMeta: pod.ObjectMeta, Spec: pod.Spec}, nil
	}},
}

// decodeTemplate decodes a workload of type T and finds its template.
func decodeTemplate[T any, P interface {
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

// AdmitWarnings answers a request to create a pod or a workload, or to
// change a workload's pod template: allowed, with Warnings' lines when the
// pod can run nowhere; refused with them instead when enforce is set (the
// request is from a namespace labelled LabelEnforce=true). A request it
// cannot read is allowed: the warnings are an aid, and their webhook's
// failurePolicy is Ignore.
func (w *Warner) AdmitWarnings(logger klog.Logger, req *admissionv1.AdmissionRequest, enforce bool) (resp *admissionv1.AdmissionResponse, outcome WarningOutcome) {
	resp = &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true}
	defer func() {
		if r := recover(); r != nil {
			logger.Error(fmt.Errorf("%v", r), "Warning panicked; admitting the object", "namespace", req.Namespace, "name", req.Name)
			resp, outcome = &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true}, WarningError
		}
	}()
	k, ok := warnedKinds[req.Resource]
	if !ok || req.SubResource != "" || (req.Operation != admissionv1.Create && req.Operation != admissionv1.Update) {
		return resp, WarningSkipped
	}
	obj, tmpl, err := k.template(req.Object.Raw)
	if err != nil {
		logger.Error(err, "Cannot read the object; admitting it without warnings", "resource", req.Resource.Resource, "namespace", req.Namespace, "name", req.Name)
		return resp, WarningError
	}
	if k.kind == "Pod" {
		// A pod its controller made was warned about as a template; a
		// bound or mirror pod skips the scheduler; an update cannot
		// change what a pod runs on.
		if req.Operation != admissionv1.Create || metav1.GetControllerOf(obj) != nil || tmpl.Spec.NodeName != "" ||
			obj.GetAnnotations()[v1.MirrorPodAnnotationKey] != "" {
			return resp, WarningSkipped
		}
	} else if req.Operation == admissionv1.Update {
		// An update that leaves the template as it was (a scale, a
		// label) was warned about when the template was written.
		if _, old, err := k.template(req.OldObject.Raw); err == nil && apiequality.Semantic.DeepEqual(old.Spec, tmpl.Spec) {
			return resp, WarningSkipped
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
	lines := w.Warnings(k.kind+" "+name, pod)
	if len(lines) == 0 {
		return resp, WarningClean
	}
	logger.V(2).Info("Warned", "kind", k.kind, "namespace", req.Namespace, "name", name, "enforce", enforce, "warnings", lines)
	if !enforce {
		resp.Warnings = lines
		return resp, WarningWarned
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
		Message: fmt.Sprintf("namespace %s is labelled %s=true: %s", req.Namespace, LabelEnforce, msg.String()),
	}
	return resp, WarningRefused
}

// maxWarningReviewBytes bounds an AdmissionReview's body: the API server
// caps objects at 3 MiB, and an update's review carries two.
const maxWarningReviewBytes = 8 << 20

// WarningsHandler serves AdmissionReview v1 requests by AdmitWarnings,
// counting each in WarningReviews. enforce is set on the path the
// webhook configuration calls for namespaces labelled LabelEnforce=true.
func (w *Warner) WarningsHandler(logger klog.Logger, enforce bool) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(rw, "POST an AdmissionReview", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxWarningReviewBytes+1))
		if err != nil || len(body) > maxWarningReviewBytes {
			WarningReviews.WithLabelValues(string(WarningError)).Inc()
			http.Error(rw, "cannot read the request body", http.StatusBadRequest)
			return
		}
		var review admissionv1.AdmissionReview
		if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
			WarningReviews.WithLabelValues(string(WarningError)).Inc()
			http.Error(rw, fmt.Sprintf("not an AdmissionReview with a request: %v", err), http.StatusBadRequest)
			return
		}
		resp, outcome := w.AdmitWarnings(logger, review.Request, enforce)
		WarningReviews.WithLabelValues(string(outcome)).Inc()
		out := admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: resp}
		if out.APIVersion == "" {
			out.APIVersion, out.Kind = admissionv1.SchemeGroupVersion.String(), "AdmissionReview"
		}
		rw.Header().Set("Content-Type", "application/json")
		if err := json.NewEncoder(rw).Encode(&out); err != nil {
			logger.Error(err, "Writing the admission response")
		}
	})
}
