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

	"gomodules.xyz/jsonpatch/v2"
	admissionv1 "k8s.io/api/admission/v1"
	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	"github.com/windows-aware/windows-aware/pkg/workloadkind"
)

var podResource = metav1.GroupVersionResource{Version: "v1", Resource: "pods"}

// Admit answers an admission request for a pod: allowed, always, with a
// JSON patch of what Publish wrote when it wrote something. Only the
// CREATE of a pod is looked at (constraints can be added to a pod only
// while it is created, and its scheduling gates only then). A request it
// cannot read is allowed unchanged, with OutcomeError: publishing is an aid,
// never a reason to refuse a pod.
func (p *Publisher) Admit(logger klog.Logger, req *admissionv1.AdmissionRequest) (resp *admissionv1.AdmissionResponse, outcome Outcome) {
	return p.admit(logger, req, nil, func(pod *v1.Pod) (Outcome, string) {
		rec, outcome := p.Publish(pod)
		return outcome, rec.String()
	})
}

// PodWarner gives the warnings of a pod at its CREATE: package warnings'
// Warner, which says why a pod runs on no node.
type PodWarner interface {
	// PodWarnings are the warnings of pod, created in namespace; none for
	// a pod that runs somewhere, or that the warnings do not judge.
	PodWarnings(logger klog.Logger, namespace string, pod *v1.Pod) []string
}

// AdmitWithWarnings is Admit whose answer also carries the warnings
// warner gives the pod as it was written (PodWarner.PodWarnings): the
// warnings webhook's, in the review the publish webhook answers anyway,
// so that a pod of the profile costs the webhook one review, not two.
func (p *Publisher) AdmitWithWarnings(logger klog.Logger, req *admissionv1.AdmissionRequest, warner PodWarner) (resp *admissionv1.AdmissionResponse, outcome Outcome) {
	return p.admit(logger, req, warner, func(pod *v1.Pod) (Outcome, string) {
		rec, outcome := p.Publish(pod)
		return outcome, rec.String()
	})
}

// AdmitOptIn answers an admission request for a pod created in a
// namespace that opts in (the webhook configuration's namespaceSelector
// names wellknown.LabelOptIn): allowed, always, with a JSON patch that sets the
// profile as the pod's scheduler when OptIn does. The publish webhook,
// called after it, then publishes the pod as the profile's.
func (p *Publisher) AdmitOptIn(logger klog.Logger, req *admissionv1.AdmissionRequest) (resp *admissionv1.AdmissionResponse, outcome Outcome) {
	return p.admit(logger, req, nil, func(pod *v1.Pod) (Outcome, string) {
		outcome := p.OptIn(pod)
		if outcome != OutcomeOptedIn {
			return outcome, ""
		}
		return outcome, "schedulerName " + p.profile
	})
}

// admit answers a pod's CREATE with the patch of what change wrote into a
// copy of it, when its outcome is one that writes, and with warner's
// warnings of the pod when warner is set.
func (p *Publisher) admit(logger klog.Logger, req *admissionv1.AdmissionRequest, warner PodWarner, change func(*v1.Pod) (Outcome, string)) (resp *admissionv1.AdmissionResponse, outcome Outcome) {
	resp = &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true}
	defer func() {
		if r := recover(); r != nil {
			logger.Error(fmt.Errorf("%v", r), "Publishing panicked; admitting the pod unchanged", "namespace", req.Namespace, "name", req.Name)
			resp, outcome = &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true}, OutcomeError
		}
	}()
	if req.Operation != admissionv1.Create || req.Resource != podResource || req.SubResource != "" {
		return resp, OutcomeSkipped
	}
	var pod v1.Pod
	if err := json.Unmarshal(req.Object.Raw, &pod); err != nil {
		logger.Error(err, "Cannot read the pod; admitting it unchanged", "namespace", req.Namespace, "name", req.Name)
		return resp, OutcomeError
	}
	if warner != nil {
		resp.Warnings = warner.PodWarnings(logger, req.Namespace, &pod)
	}
	changed := pod.DeepCopy()
	outcome, what := change(changed)
	// Not by outcome alone: a pod skipped or in conflict may still have
	// been given the label of the gate it arrived with (Publish).
	if apiequality.Semantic.DeepEqual(&pod, changed) {
		return resp, outcome
	}
	patch, err := createPatch(&pod, changed)
	if err != nil {
		logger.Error(err, "Cannot write the patch; admitting the pod unchanged", "namespace", req.Namespace, "name", podName(&pod))
		return resp, OutcomeError
	}
	resp.Patch = patch
	resp.PatchType = ptr.To(admissionv1.PatchTypeJSONPatch)
	logger.V(2).Info("Changed the pod", "namespace", req.Namespace, "name", podName(&pod), "outcome", outcome, "wrote", what)
	return resp, outcome
}

// createPatch is the RFC 6902 patch from original to published. Both are
// marshalled from the same type, so fields this build does not know of
// (sent by a newer API server) are in neither and are never removed.
func createPatch(original, published *v1.Pod) ([]byte, error) {
	return createPatchOf(original, published)
}

// createPatchOf is createPatch for any two objects of one type.
func createPatchOf(original, published any) ([]byte, error) {
	before, err := json.Marshal(original)
	if err != nil {
		return nil, err
	}
	after, err := json.Marshal(published)
	if err != nil {
		return nil, err
	}
	ops, err := jsonpatch.CreatePatch(before, after)
	if err != nil {
		return nil, err
	}
	return json.Marshal(ops)
}

// podName names a pod in logs.
func podName(pod *v1.Pod) string {
	return workloadkind.ObjectName(pod.Name, pod.GenerateName)
}
