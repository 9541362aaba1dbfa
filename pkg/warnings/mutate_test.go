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
	"encoding/json"
	"slices"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	"github.com/windows-aware/windows-aware/pkg/apis/config/scheme"
	"github.com/windows-aware/windows-aware/pkg/publish"
)

// TestAdmitWithWarnings: the publish webhook's /mutate/warnings answers a
// pod's CREATE with the very warnings the warnings webhook gives it, and
// with the very patch /mutate writes; a pod the warnings do not judge gets
// none there either.
func TestAdmitWithWarnings(t *testing.T) {
	logger := klog.Background()
	publisher, err := publish.New("windows-aware", scheme.DefaultArgs())
	if err != nil {
		t.Fatal(err)
	}
	bound := warnPod("bound", warnSpec(warnImg2016))
	bound.Spec.NodeName = "w22"
	mirror := warnPod("mirror", warnSpec(warnImg2016))
	mirror.Annotations = map[string]string{v1.MirrorPodAnnotationKey: "x"}
	unnamed := warnPod("", warnSpec(warnImg2016))
	unnamed.GenerateName, unnamed.Namespace = "legacy-", ""
	cases := []struct {
		name string
		pod  *v1.Pod
		// judged: the warnings webhook judges this pod (it is not a
		// controller's, bound or mirror).
		judged, warned bool
	}{
		{name: "ltsc2016 on 2022 and 2025 nodes", pod: warnPod("iis", warnSpec(warnImg2016)), judged: true, warned: true},
		{name: "ltsc2022 runs", pod: warnPod("iis", warnSpec(warnImg2022)), judged: true},
		{name: "Linux runs", pod: warnPod("web", warnSpec(warnImgLinux)), judged: true},
		{name: "created with generateName, no namespace yet", pod: unnamed, judged: true, warned: true},
		{name: "a controller's pod", pod: ownedPod(), judged: false},
		{name: "bound", pod: bound, judged: false},
		{name: "mirror", pod: mirror, judged: false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.pod.Spec.SchedulerName = "windows-aware"
			warner, err := New("windows-aware", scheme.DefaultArgs(), warnCluster(), nil)
			if err != nil {
				t.Fatal(err)
			}
			req := warnReview(t, admissionv1.Create, "pods", tc.pod, nil)
			want, wantOutcome := warner.Admit(logger, req, false)
			if judged := wantOutcome != OutcomeSkipped; judged != tc.judged {
				t.Fatalf("the warnings webhook's outcome is %s: the case is wrong", wantOutcome)
			}
			if tc.warned != (len(want.Warnings) > 0) {
				t.Fatalf("the warnings webhook warns %q: the case is wrong", want.Warnings)
			}
			published, _ := publisher.Admit(logger, req)
			got, _ := publisher.AdmitWithWarnings(logger, req, warner)
			if !tc.judged && len(got.Warnings) > 0 {
				t.Errorf("warnings for a pod the warnings webhook does not judge: %q", got.Warnings)
			}
			if tc.judged && !slices.Equal(got.Warnings, want.Warnings) {
				t.Errorf("warnings\n%q\nwant the warnings webhook's\n%q", got.Warnings, want.Warnings)
			}
			if !got.Allowed || !samePatch(t, got.Patch, published.Patch) {
				t.Errorf("allowed %v, patch\n%s\nwant /mutate's\n%s", got.Allowed, got.Patch, published.Patch)
			}
		})
	}
}

func ownedPod() *v1.Pod {
	p := warnPod("web-abc", warnSpec(warnImg2016))
	p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "1", Controller: ptr.To(true)}}
	return p
}

// samePatch reports whether two JSON patches hold the same operations, in
// any order (a patch lists a map's changes in no fixed order).
func samePatch(t *testing.T, a, b []byte) bool {
	t.Helper()
	ops := func(p []byte) []string {
		var raw []json.RawMessage
		if len(p) > 0 {
			if err := json.Unmarshal(p, &raw); err != nil {
				t.Fatalf("not a JSON patch: %v: %s", err, p)
			}
		}
		out := make([]string, len(raw))
		for i, op := range raw {
			out[i] = string(op)
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(ops(a), ops(b))
}
