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
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"

	"github.com/windows-aware/windows-aware/pkg/publish"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// maxReportedErrors bounds the pods RemoveAll names in its error; the log
// names every one.
const maxReportedErrors = 10

// RemoveAllResult counts what RemoveAll did.
type RemoveAllResult struct {
	// Ungated pods had the gate removed.
	Ungated int
	// Unlabelled pods had lost the gate already (another writer, the
	// controller) but kept the label, which was removed.
	Unlabelled int
	// Gone pods were deleted, or no longer gated nor labelled, before
	// their patch.
	Gone int
	// Failed pods still carry the gate: the API server refused the patch
	// or could not be reached in time.
	Failed int
}

// removal is what removeGate did to a pod.
type removal int

const (
	removedGate removal = iota
	removedLabel
	removedNothing
)

// RemoveAll removes the scheduling gate wellknown.GatePlatform, and its
// label, from every pod of the cluster that carries them, writing nothing
// else: what uninstalling publish mode leaves behind, since with the gate
// remover gone a gated pod would never be scheduled. The pod is then
// placed by whatever scheduler its schedulerName names; its constraints
// are not resolved first, as no registry need be asked to let it go.
//
// It reads every pod, pageSize at a time (DefaultPageSize when 0), and
// picks those that carry the gate or the label: the webhook labels every
// pod it gates, but a pod created with the gate by someone else, or whose
// label was removed since, carries the gate alone, and no selector finds
// a gate. Each patch applies to the pod as read (patch.go) and removes our
// gate alone, so that other gates stay in their order; a conflict reads
// the pod again. A pod that fails is logged and the others are still done;
// the error then names the failures. It stops when ctx ends.
func RemoveAll(ctx context.Context, client kubernetes.Interface, pageSize int64) (RemoveAllResult, error) {
	logger := klog.FromContext(ctx)
	var res RemoveAllResult
	var errs []error
	// seen keeps a pod from being tried again when the list starts over.
	seen := map[types.UID]bool{}
	err := eachPod(ctx, client, "", pageSize, func(pod *v1.Pod) {
		if _, labelled := pod.Labels[wellknown.LabelGated]; seen[pod.UID] || !labelled && !publish.Gated(pod) {
			return
		}
		seen[pod.UID] = true
		did, err := removeGate(ctx, client, pod)
		switch {
		case err != nil:
			res.Failed++
			logger.Error(err, "Removing the publish gate", "pod", klog.KObj(pod))
			if len(errs) < maxReportedErrors {
				errs = append(errs, err)
			}
		case did == removedGate:
			res.Ungated++
			logger.V(2).Info("Removed the publish gate", "pod", klog.KObj(pod))
		case did == removedLabel:
			res.Unlabelled++
		default:
			res.Gone++
		}
	})
	if err != nil {
		return res, errors.Join(append([]error{fmt.Errorf("listing the pods: %w", err)}, errs...)...)
	}
	if res.Failed > 0 {
		if res.Failed > len(errs) {
			errs = append(errs, fmt.Errorf("and %d pods more (see the log)", res.Failed-len(errs)))
		}
		return res, fmt.Errorf("%d pods keep the scheduling gate %s: %w", res.Failed, wellknown.GatePlatform, errors.Join(errs...))
	}
	return res, nil
}

// removeGate patches one pod, as listed, to be without the gate and its
// label, reading it again on a conflict, and says what it removed; a pod
// gone meanwhile, or no longer gated nor labelled, is no error.
func removeGate(ctx context.Context, client kubernetes.Interface, listed *v1.Pod) (removal, error) {
	did := removedNothing
	first := true
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		current := listed
		if !first {
			var err error
			if current, err = client.CoreV1().Pods(listed.Namespace).Get(ctx, listed.Name, metav1.GetOptions{}); err != nil {
				return err
			}
			if current.UID != listed.UID {
				return apierrors.NewNotFound(v1.Resource("pods"), listed.Name) // another pod of the same name
			}
		}
		first = false
		_, labelled := current.Labels[wellknown.LabelGated]
		switch {
		case publish.Gated(current):
			did = removedGate
		case labelled:
			did = removedLabel
		default:
			did = removedNothing
			return nil
		}
		bare := current.DeepCopy()
		publish.RemoveGate(bare)
		patch, err := ungatePatch(current, bare)
		if err != nil {
			return err
		}
		_, err = client.CoreV1().Pods(current.Namespace).Patch(ctx, current.Name, types.JSONPatchType, patch, metav1.PatchOptions{})
		return err
	})
	if apierrors.IsNotFound(err) {
		return removedNothing, nil
	}
	if err != nil {
		return removedNothing, fmt.Errorf("pod %s/%s: %w", listed.Namespace, listed.Name, err)
	}
	return did, nil
}
