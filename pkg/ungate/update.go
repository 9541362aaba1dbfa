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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/plugins/windowsaware"
	"github.com/windows-aware/windows-aware/pkg/publish"
)

// Event reasons of the controller. A registry that did not tell gets the
// scheduler plugin's own reason, so that one name covers both.
const (
	// EventImagePlatformsUnknown: the gate was removed under onFailure.
	EventImagePlatformsUnknown = windowsaware.EventImagePlatformsUnknown
	// EventPlatformConflict: the gate was removed without constraints,
	// as the pod's own constraints contradict what its images need.
	EventPlatformConflict = "PlatformConflict"
)

// ungate removes the gate from pod in one update, with what the profile
// decides written in, and tells of it. A conflict on the update (the pod
// changed meanwhile) reads the pod again and builds the update anew.
func (c *Controller) ungate(ctx context.Context, pod *v1.Pod, resolveErr error) error {
	logger := klog.FromContext(ctx)
	var (
		updated  *v1.Pod
		rec      publish.Record
		outcome  publish.Outcome
		wasGated bool
	)
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
		wasGated = publish.Gated(current)
		if !wasGated && current.Labels[publish.LabelGated] == "" {
			updated = nil // done meanwhile
			return nil
		}
		updated = current.DeepCopy()
		rec, outcome = c.publisher.Ungate(updated, resolveErr)
		var err error
		updated, err = c.client.CoreV1().Pods(pod.Namespace).Update(ctx, updated, metav1.UpdateOptions{})
		return err
	})
	if apierrors.IsNotFound(err) {
		return nil // deleted meanwhile: nothing to ungate
	}
	if err == nil && updated == nil {
		return nil
	}
	if err != nil {
		return fmt.Errorf("removing the scheduling gate of pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	result := c.outcomeOf(wasGated, outcome, resolveErr)
	Ungated.WithLabelValues(string(result)).Inc()
	if wasGated {
		GateDuration.WithLabelValues(string(result)).Observe(c.opts.Clock.Since(pod.CreationTimestamp.Time).Seconds())
	}
	logger.V(2).Info("Removed the publish gate", "pod", klog.KObj(pod), "outcome", result, "record", rec.String(), "err", resolveErr)
	switch result {
	case OutcomeFallback, OutcomeRejected:
		action := "placing the pod by its image tags"
		if result == OutcomeRejected {
			action = "the scheduler keeps the pod unschedulable until the registry tells (onFailure: Reject)"
		}
		c.recorder.Eventf(updated, nil, v1.EventTypeWarning, EventImagePlatformsUnknown, "Ungate",
			"could not read the platforms of %v; removed the scheduling gate %s, %s", c.describe(resolveErr), publish.GatePlatform, action)
	case OutcomeConflict:
		c.recorder.Eventf(updated, nil, v1.EventTypeWarning, EventPlatformConflict, "Ungate",
			"removed the scheduling gate %s without writing constraints: %s", publish.GatePlatform, c.publisher.Conflict(updated))
	}
	return nil
}

// outcomeOf names what happened to a pod.
func (c *Controller) outcomeOf(wasGated bool, outcome publish.Outcome, resolveErr error) Outcome {
	switch {
	case !wasGated:
		return OutcomeRemovedElsewhere
	case resolveErr != nil && c.publisher.OnFailure() == config.OnFailureReject:
		return OutcomeRejected
	case resolveErr != nil:
		return OutcomeFallback
	case outcome == publish.OutcomeConflict:
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
