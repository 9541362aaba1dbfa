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
	"encoding/json"
	"errors"
	"fmt"

	"gomodules.xyz/jsonpatch/v2"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// ungatePatch is the RFC 6902 patch that turns before, the pod as read,
// into after: operations on the fields that differ (the gate, the label,
// and what publishing writes) and nothing else, so that fields this build
// does not know, or that another writer owns, are never sent back.
//
// Its first operation sets metadata.resourceVersion to before's: the API
// server then applies the patch only to the very pod it was built from,
// and answers a Conflict when the pod changed in between (another
// controller, a user, a gate removed by hand). The caller reads the pod
// again and builds the patch anew, so that no update is lost and no
// index-addressed operation (a gate, a toleration, an affinity term) hits
// an entry that moved.
func ungatePatch(before, after *v1.Pod) ([]byte, error) {
	if before.ResourceVersion == "" {
		return nil, errors.New("the pod as read has no resourceVersion")
	}
	from, err := json.Marshal(before)
	if err != nil {
		return nil, err
	}
	to, err := json.Marshal(after)
	if err != nil {
		return nil, err
	}
	diff, err := jsonpatch.CreatePatch(from, to)
	if err != nil {
		return nil, fmt.Errorf("building the patch: %w", err)
	}
	ops := append([]jsonpatch.Operation{{Operation: "replace", Path: "/metadata/resourceVersion", Value: before.ResourceVersion}}, diff...)
	return json.Marshal(ops)
}

// refused reports whether err is the API server refusing the update for
// good, whatever the pod's resourceVersion: validation, an admission
// plugin or webhook (a ValidatingAdmissionPolicy, a quota, a policy
// engine), or the authorizer. Such an update is not tried again as it was.
// A conflict, a pod gone, or an overloaded or unreachable server is not a
// refusal: those are retried.
func refused(err error) bool {
	var status apierrors.APIStatus
	if err == nil || !errors.As(err, &status) {
		return false
	}
	switch {
	case apierrors.IsConflict(err), apierrors.IsNotFound(err), apierrors.IsGone(err),
		apierrors.IsTooManyRequests(err), apierrors.IsServerTimeout(err), apierrors.IsTimeout(err),
		apierrors.IsServiceUnavailable(err):
		return false
	}
	return true
}
