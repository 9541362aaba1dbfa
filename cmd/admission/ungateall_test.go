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

package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/windows-aware/windows-aware/pkg/publish"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// TestUngateAll: the webhook configuration goes first, then the gate from
// every gated pod, labelled or not; a configuration gone already is no
// error.
func TestUngateAll(t *testing.T) {
	const webhook = "00-windows-aware-publish"
	for _, present := range []bool{true, false} {
		t.Run(map[bool]string{true: "webhook present", false: "webhook gone"}[present], func(t *testing.T) {
			pod := &v1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "uid-web", ResourceVersion: "1",
					Labels: map[string]string{wellknown.LabelGated: "true"}},
				Spec: v1.PodSpec{SchedulingGates: []v1.PodSchedulingGate{{Name: "example.com/other"}, {Name: wellknown.GatePlatform}}},
			}
			unlabelled := pod.DeepCopy()
			unlabelled.Name, unlabelled.UID, unlabelled.Labels = "unlabelled", "uid-unlabelled", nil
			client := fake.NewClientset(pod, unlabelled)
			if present {
				if err := client.Tracker().Add(&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: webhook}}); err != nil {
					t.Fatal(err)
				}
			}
			// The order of the calls: the webhook's deletion before the
			// pods are read.
			var order []string
			client.PrependReactor("*", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
				order = append(order, a.GetVerb()+" "+a.GetResource().Resource)
				return false, nil, nil
			})
			var out bytes.Buffer
			o := &ungateAllOptions{webhookConfiguration: webhook, pageSize: 500}
			if err := o.run(context.Background(), client, &out); err != nil {
				t.Fatal(err)
			}
			if want := "delete mutatingwebhookconfigurations"; len(order) == 0 || order[0] != want {
				t.Errorf("calls %v, want %q first", order, want)
			}
			_, err := client.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(context.Background(), webhook, metav1.GetOptions{})
			if !apierrors.IsNotFound(err) {
				t.Errorf("the webhook configuration: %v, want it deleted", err)
			}
			for _, name := range []string{"web", "unlabelled"} {
				got, err := client.CoreV1().Pods("default").Get(context.Background(), name, metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if publish.Gated(got) || len(got.Spec.SchedulingGates) != 1 || got.Labels[wellknown.LabelGated] != "" {
					t.Errorf("pod %s after: gates %v, labels %v; want the other gate alone, no label", name, got.Spec.SchedulingGates, got.Labels)
				}
			}
			if !strings.Contains(out.String(), "ungated=2 unlabelled=0 gone=0 failed=0") {
				t.Errorf("output %q", out.String())
			}
		})
	}
}
