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

package ungate

import (
	"context"
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/publish"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// attempt is one try at a pod: what was sent and what came of it.
type attempt struct {
	updated *v1.Pod
	rec     wellknown.Record
	outcome publish.Outcome
	// conflict is the decision's message under OutcomeConflict.
	conflict string
	wasGated bool
	// refusal is the API server's answer to the patch with the
	// constraints, when it refused it and the gate was removed alone.
	refusal error
}

// ungate removes the gate from pod with one patch that writes what the
// profile decides and touches nothing else, and tells of it. A conflict
// (the pod changed since it was read) reads the pod again and builds the
// patch anew. When the API server refuses the constraints for any other
// reason, the gate is removed alone, with a Warning Event that names the
// refusal: the scheduler's Filter still places the pod right, and no pod
// stays gated because something else in the cluster objects to what
// publishing writes.
func (c *Controller) ungate(ctx context.Context, pod *v1.Pod, resolveErr error) error {
	logger := klog.FromContext(ctx)
	var a attempt
	first := true
	err := retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		current := pod
		if !first {
			var err error
			if current, err = c.client.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{}); err != nil {
				return err
			}
		}
		first = false
		if current.UID != pod.UID {
			return apierrors.NewNotFound(v1.Resource("pods"), pod.Name) // a new pod of the same name: its own events come
		}
		var err error
		a, err = c.try(ctx, current, resolveErr)
		return err
	})
	if apierrors.IsNotFound(err) {
		return nil // deleted meanwhile: nothing to ungate
	}
	if err != nil {
		return fmt.Errorf("removing the scheduling gate of pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	if a.updated == nil {
		return nil // done meanwhile
	}
	result := c.outcomeOf(a, resolveErr)
	Ungated.WithLabelValues(string(result)).Inc()
	if a.wasGated {
		GateDuration.WithLabelValues(string(result)).Observe(c.opts.Clock.Since(pod.CreationTimestamp.Time).Seconds())
	}
	logger.V(2).Info("Removed the publish gate", "pod", klog.KObj(pod), "outcome", result, "record", a.rec.String(), "err", resolveErr, "refusal", a.refusal)
	switch result {
	case OutcomeRefused:
		c.recorder.Eventf(a.updated, nil, v1.EventTypeWarning, wellknown.EventPublishRefused, "Ungate",
			"the API server refused the constraints publishing writes (%v); removed the scheduling gate %s alone, the scheduler still places the pod by its images",
			a.refusal, wellknown.GatePlatform)
	case OutcomeFallback, OutcomeRejected:
		action := "placing the pod by its image tags"
		if result == OutcomeRejected {
			action = "the scheduler keeps the pod unschedulable until the registry tells (onFailure: Reject)"
		}
		c.recorder.Eventf(a.updated, nil, v1.EventTypeWarning, wellknown.EventImagePlatformsUnknown, "Ungate",
			"could not read the platforms of %v; removed the scheduling gate %s, %s", c.describe(resolveErr), wellknown.GatePlatform, action)
	case OutcomeConflict:
		c.recorder.Eventf(a.updated, nil, v1.EventTypeWarning, wellknown.EventPlatformConflict, "Ungate",
			"removed the scheduling gate %s without writing constraints: %s", wellknown.GatePlatform, a.conflict)
	}
	return nil
}

// try patches current, as read, once with what the profile decides, and,
// when the API server refuses that, once more with the gate's removal
// alone. A conflict is returned as it is, for the caller to read again.
func (c *Controller) try(ctx context.Context, current *v1.Pod, resolveErr error) (attempt, error) {
	a := attempt{wasGated: publish.Gated(current)}
	if !a.wasGated && current.Labels[wellknown.LabelGated] == "" {
		return a, nil // done meanwhile
	}
	published := current.DeepCopy()
	a.rec, a.outcome, a.conflict = c.publisher.Ungate(published, resolveErr)
	updated, err := c.patch(ctx, current, published)
	if err == nil || !refused(err) {
		a.updated = updated
		return a, err
	}
	bare := current.DeepCopy()
	publish.RemoveGate(bare)
	if apiequality.Semantic.DeepEqual(published, bare) {
		return a, err // nothing but the gate was sent: nothing less to try
	}
	a.refusal = err
	a.updated, err = c.patch(ctx, current, bare)
	if err != nil {
		return a, fmt.Errorf("%w (the constraints were refused first: %w)", err, a.refusal)
	}
	return a, nil
}

// patch sends the change from current, as read, to want.
func (c *Controller) patch(ctx context.Context, current, want *v1.Pod) (*v1.Pod, error) {
	patch, err := ungatePatch(current, want)
	if err != nil {
		return nil, err
	}
	return c.client.CoreV1().Pods(current.Namespace).Patch(ctx, current.Name, types.JSONPatchType, patch, metav1.PatchOptions{})
}

// outcomeOf names what happened to a pod.
func (c *Controller) outcomeOf(a attempt, resolveErr error) Outcome {
	switch {
	case !a.wasGated:
		return OutcomeRemovedElsewhere
	case a.refusal != nil:
		return OutcomeRefused
	case resolveErr != nil && c.publisher.OnFailure() == config.OnFailureReject:
		return OutcomeRejected
	case resolveErr != nil:
		return OutcomeFallback
	case a.outcome == publish.OutcomeConflict:
		return OutcomeConflict
	}
	return OutcomeResolved
}

// describe is an unresolved image as an Event names it: the image, the
// registry host and the registry's error, or how long it was waited for.
func (c *Controller) describe(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("%v (%s)", err, c.opts.Timeout)
	}
	return err.Error()
}
