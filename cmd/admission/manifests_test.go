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
	"path/filepath"
	"slices"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/internal/manifest"
	"github.com/windows-aware/windows-aware/pkg/publish"
)

// TestShippedManifests holds manifests/publish to what the webhook and the
// issue of autoscalers need: it sorts before other mutating webhooks, fails
// open within 2s, is scoped to the profile and the opt-out label the code
// uses, and its ServiceAccount holds no token.
func TestShippedManifests(t *testing.T) {
	dir := filepath.Join("..", "..", "manifests", "publish")
	var objs []any
	for _, f := range []string{"mutatingwebhookconfiguration.yaml", "deployment.yaml", "serviceaccount.yaml", "service.yaml", "pdb.yaml"} {
		got, err := manifest.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range got {
			objs = append(objs, o)
		}
	}
	for _, o := range objs {
		switch o := o.(type) {
		case *admissionregistrationv1.MutatingWebhookConfiguration:
			if o.Name >= "vpc-resource-mutating-webhook" || !strings.HasPrefix(o.Name, "00-") {
				t.Errorf("configuration %q does not sort first", o.Name)
			}
			for _, w := range o.Webhooks {
				if *w.FailurePolicy != admissionregistrationv1.Ignore || *w.TimeoutSeconds > 2 || *w.SideEffects != admissionregistrationv1.SideEffectClassNone ||
					*w.ReinvocationPolicy != admissionregistrationv1.NeverReinvocationPolicy {
					t.Errorf("webhook %s: failurePolicy %v, timeout %v, sideEffects %v, reinvocation %v", w.Name, *w.FailurePolicy, *w.TimeoutSeconds, *w.SideEffects, *w.ReinvocationPolicy)
				}
				if len(w.Rules) != 1 || !slices.Equal(w.Rules[0].Operations, []admissionregistrationv1.OperationType{admissionregistrationv1.Create}) ||
					!slices.Equal(w.Rules[0].Resources, []string{"pods"}) {
					t.Errorf("webhook %s rules %+v: want the CREATE of pods only", w.Name, w.Rules)
				}
				var conditions string
				for _, c := range w.MatchConditions {
					conditions += c.Expression + "\n"
				}
				for _, want := range []string{"'windows-aware'", "'" + publish.LabelPublish + "'"} {
					if !strings.Contains(conditions, want) {
						t.Errorf("webhook %s matchConditions do not name %s:\n%s", w.Name, want, conditions)
					}
				}
				if w.ClientConfig.Service == nil || w.ClientConfig.Service.Name != "windows-aware-publish" || *w.ClientConfig.Service.Path != "/mutate" {
					t.Errorf("webhook %s calls %+v, want the windows-aware-publish Service at /mutate", w.Name, w.ClientConfig)
				}
			}
		case *appsv1.Deployment:
			if *o.Spec.Replicas < 2 || o.Spec.Template.Spec.AutomountServiceAccountToken == nil || *o.Spec.Template.Spec.AutomountServiceAccountToken {
				t.Errorf("Deployment: %d replicas, automount %v; want 2 or more and no token", *o.Spec.Replicas, o.Spec.Template.Spec.AutomountServiceAccountToken)
			}
			args := strings.Join(o.Spec.Template.Spec.Containers[0].Command, " ")
			if !strings.Contains(args, "--profile=windows-aware") || !strings.Contains(args, "--port=9443") {
				t.Errorf("Deployment command %q: want --profile=windows-aware --port=9443", args)
			}
		case *v1.ServiceAccount:
			if o.AutomountServiceAccountToken == nil || *o.AutomountServiceAccountToken {
				t.Errorf("ServiceAccount %s mounts a token", o.Name)
			}
		}
	}
}
