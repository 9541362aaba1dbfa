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
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/apis/config/scheme"
	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
	"github.com/windows-aware/windows-aware/pkg/publish"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// TestUngateWithoutLosses: the gate comes off with a patch that touches
// only the gate, the label and what publishing writes, applied to the pod
// as read; whatever the API server or another writer does in between, the
// pod comes out ungated and nothing anyone else wrote is lost.
func TestUngateWithoutLosses(t *testing.T) {
	s := registrytest.New(t, registrytest.WithTLS())
	s.Push(t, "web:1.4.2", registrytest.WindowsImage(t, "10.0.17763.5329"))

	tests := []struct {
		name string
		// react runs before each patch reaches the stored pod; n counts
		// the patches from 1. It may change the stored pod or answer.
		react       func(t *testing.T, client *fake.Clientset, n int, patch []byte) (bool, error)
		wantOutcome Outcome
		wantBuilds  bool
		wantEvent   string
		// check looks at the pod as stored in the end.
		check func(t *testing.T, got *v1.Pod)
	}{
		{
			name: "an admission policy refuses the constraints: the gate comes off alone, a Warning Event names the refusal",
			react: func(_ *testing.T, _ *fake.Clientset, _ int, patch []byte) (bool, error) {
				if strings.Contains(string(patch), "/spec/affinity") {
					return true, apierrors.NewForbidden(v1.Resource("pods"), "web",
						textError("ValidatingAdmissionPolicy 'no-build-affinity' denied request: no build affinity here"))
				}
				return false, nil
			},
			wantOutcome: OutcomeRefused,
			wantEvent:   "Warning PublishRefused the API server refused the constraints publishing writes (pods \"web\" is forbidden: ValidatingAdmissionPolicy 'no-build-affinity' denied request",
			check: func(t *testing.T, got *v1.Pod) {
				if got.Spec.Affinity != nil {
					t.Errorf("refused constraints were written: affinity %v", got.Spec.Affinity)
				}
				if !hasGate(got, "example.com/other") {
					t.Errorf("another gate went too: %v", got.Spec.SchedulingGates)
				}
			},
		},
		{
			name: "a validation error is a refusal too",
			react: func(_ *testing.T, _ *fake.Clientset, _ int, patch []byte) (bool, error) {
				if strings.Contains(string(patch), "/spec/affinity") {
					return true, apierrors.NewInvalid(v1.SchemeGroupVersion.WithKind("Pod").GroupKind(), "web", nil)
				}
				return false, nil
			},
			wantOutcome: OutcomeRefused,
			wantEvent:   "Warning PublishRefused",
		},
		{
			name: "an overloaded API server is no refusal: retried, then written in full",
			react: func(_ *testing.T, _ *fake.Clientset, n int, _ []byte) (bool, error) {
				if n == 1 {
					return true, apierrors.NewTooManyRequests("slow down", 0)
				}
				return false, nil
			},
			wantOutcome: OutcomeResolved,
			wantBuilds:  true,
		},
		{
			name: "the pod is changed between read and patch: read again, nothing of the change lost",
			react: func(t *testing.T, client *fake.Clientset, n int, _ []byte) (bool, error) {
				if n != 1 {
					return false, nil
				}
				// Another writer: a label, an annotation, a toleration,
				// and the other gate removed, all after the controller's
				// read.
				obj, err := client.Tracker().Get(v1.SchemeGroupVersion.WithResource("pods"), "default", "web")
				if err != nil {
					t.Fatal(err)
				}
				pod := obj.(*v1.Pod).DeepCopy()
				pod.Labels["team"] = "a"
				pod.Annotations["note"] = "kept"
				pod.Spec.Tolerations = append(pod.Spec.Tolerations, v1.Toleration{Key: "team", Operator: v1.TolerationOpExists})
				pod.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: wellknown.GatePlatform}}
				pod.ResourceVersion = "2"
				if err := client.Tracker().Update(v1.SchemeGroupVersion.WithResource("pods"), pod, "default"); err != nil {
					t.Fatal(err)
				}
				return false, nil
			},
			wantOutcome: OutcomeResolved,
			wantBuilds:  true,
			check: func(t *testing.T, got *v1.Pod) {
				if got.Labels["team"] != "a" || got.Annotations["note"] != "kept" || !slices.ContainsFunc(got.Spec.Tolerations, func(t v1.Toleration) bool { return t.Key == "team" }) {
					t.Errorf("the other writer's change was lost: labels %v, annotations %v, tolerations %v", got.Labels, got.Annotations, got.Spec.Tolerations)
				}
				if len(got.Spec.SchedulingGates) != 0 {
					t.Errorf("gates %v, want none: the other gate was removed by the other writer, ours by the controller", got.Spec.SchedulingGates)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := gatingArgs(s.Host(), s.CAFile(), config.OnFailureTagRules, 5*time.Second)
			pod := gatedPod(t, args, s.Ref("web:1.4.2"), metav1.Now())
			pod.Spec.SchedulingGates = append(pod.Spec.SchedulingGates, v1.PodSchedulingGate{Name: "example.com/other"})
			client := fake.NewClientset(pod)
			enforceResourceVersion(client)
			var n int
			client.PrependReactor("patch", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
				n++
				handled, err := tt.react(t, client, n, action.(k8stesting.PatchAction).GetPatch())
				return handled, nil, err
			})
			before := testCount(t, tt.wantOutcome)
			recorded, got := runUntilUngated(t, client, args, Options{Workers: 1})
			if d := testCount(t, tt.wantOutcome) - before; d != 1 {
				t.Errorf("ungated_pods_total{outcome=%q} grew by %v, want 1", tt.wantOutcome, d)
			}
			if hasGate(got, wellknown.GatePlatform) || got.Labels[wellknown.LabelGated] != "" {
				t.Errorf("still gated: gates %v, labels %v", got.Spec.SchedulingGates, got.Labels)
			}
			if builds := requiredBuildsOf(got); (builds != "") != tt.wantBuilds {
				t.Errorf("required builds %q, want them written: %v", builds, tt.wantBuilds)
			}
			switch {
			case tt.wantEvent == "" && len(recorded) > 0:
				t.Errorf("events %q, want none", recorded)
			case tt.wantEvent != "" && (len(recorded) != 1 || !strings.Contains(recorded[0], tt.wantEvent)):
				t.Errorf("events %q, want one with %q", recorded, tt.wantEvent)
			}
			if tt.check != nil {
				tt.check(t, got)
			}
		})
	}
}

// TestUngateDeadlineFromPodAge: a pod gated longer than the timeout (by a
// controller that died, or while none ran) is ungated under onFailure at
// once by the controller that finds it, whatever its own start, even
// while its registry does not answer.
func TestUngateDeadlineFromPodAge(t *testing.T) {
	// A registry that never answers, within a request timeout longer
	// than the test.
	host, caFile := registrytest.Hanging(t)
	const timeout = time.Minute
	args := gatingArgs(host, caFile, config.OnFailureTagRules, timeout)
	args.ImageResolution.RequestTimeout = metav1.Duration{Duration: 10 * time.Minute}
	pod := gatedPod(t, args, host+"/web:1", metav1.NewTime(time.Now().Add(-2*timeout)))
	client := fake.NewClientset(pod)
	enforceResourceVersion(client)

	start := time.Now()
	recorded, _ := runUntilUngated(t, client, args, Options{Workers: 1})
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("a pod gated for %s waited %s more", 2*timeout, took)
	}
	if len(recorded) != 1 || !strings.Contains(recorded[0], "Warning ImagePlatformsUnknown") {
		t.Errorf("events %q, want one ImagePlatformsUnknown", recorded)
	}
}

// gatingArgs are the WindowsAware args of a profile that gates the
// Windows pods of registry host.
func gatingArgs(host, caFile, onFailure string, gateTimeout time.Duration) *config.WindowsAwareArgs {
	args := scheme.DefaultArgs()
	args.ImageResolution.Scope = config.ResolutionWindows
	args.ImageResolution.OnFailure = onFailure
	args.ImageResolution.GateTimeout = metav1.Duration{Duration: gateTimeout}
	args.ImageResolution.Registries = []config.RegistryHost{{Host: host, AllowPrivate: true, CAFile: caFile}}
	return args
}

// gatedPod is a Windows pod of image as the webhook admits it: gated,
// labelled, created at created, at resourceVersion 1.
func gatedPod(t *testing.T, args *config.WindowsAwareArgs, image string, created metav1.Time) *v1.Pod {
	t.Helper()
	admission, err := publish.New(profile, args)
	if err != nil {
		t.Fatal(err)
	}
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "uid-web", CreationTimestamp: created, ResourceVersion: "1",
			Labels: map[string]string{}, Annotations: map[string]string{}},
		Spec: v1.PodSpec{SchedulerName: profile, OS: &v1.PodOS{Name: v1.Windows},
			Containers: []v1.Container{{Name: "web", Image: image}}},
	}
	if _, outcome := admission.Publish(pod); outcome != publish.OutcomeGated {
		t.Fatalf("admission: %q, want gated", outcome)
	}
	return pod
}

// runUntilUngated runs a controller on client until the pod default/web
// has lost its gate label, and returns the Events recorded and the pod.
func runUntilUngated(t *testing.T, client *fake.Clientset, args *config.WindowsAwareArgs, opts Options) ([]string, *v1.Pod) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p, err := publish.NewResolving(ctx, profile, args, nil)
	if err != nil {
		t.Fatal(err)
	}
	recorder := events.NewFakeRecorder(10)
	c := New(client, p, recorder, opts)
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	var got *v1.Pod
	if err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 20*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err = client.CoreV1().Pods("default").Get(ctx, "web", metav1.GetOptions{})
		return err == nil && got.Labels[wellknown.LabelGated] == "", err
	}); err != nil {
		t.Fatalf("the pod was not ungated: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var recorded []string
	for len(recorder.Events) > 0 {
		recorded = append(recorded, <-recorder.Events)
	}
	return recorded, got
}

// enforceResourceVersion makes the fake API server do what the real one
// does with a patch that sets metadata.resourceVersion: refuse it with a
// Conflict unless the stored pod is at that version.
func enforceResourceVersion(client *fake.Clientset) {
	client.PrependReactor("patch", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
		a := action.(k8stesting.PatchAction)
		var ops []struct {
			Op, Path string
			Value    any
		}
		if err := json.Unmarshal(a.GetPatch(), &ops); err != nil {
			return true, nil, apierrors.NewBadRequest(err.Error())
		}
		obj, err := client.Tracker().Get(a.GetResource(), a.GetNamespace(), a.GetName())
		if err != nil {
			return true, nil, err
		}
		for _, op := range ops {
			if op.Path == "/metadata/resourceVersion" && op.Value != obj.(*v1.Pod).ResourceVersion {
				return true, nil, apierrors.NewConflict(v1.Resource("pods"), a.GetName(), textError("the object has been modified"))
			}
		}
		return false, nil, nil
	})
}

// textError is an error of a fixed text.
type textError string

func (e textError) Error() string { return string(e) }

func hasGate(pod *v1.Pod, name string) bool {
	for _, g := range pod.Spec.SchedulingGates {
		if g.Name == name {
			return true
		}
	}
	return false
}

// requiredBuildsOf is the values of the required build expression, joined.
func requiredBuildsOf(pod *v1.Pod) string {
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, e := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions {
			if e.Key == v1.LabelWindowsBuild {
				return strings.Join(e.Values, ",")
			}
		}
	}
	return ""
}
