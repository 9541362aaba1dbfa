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
	"fmt"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
	"github.com/windows-aware/windows-aware/pkg/publish"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

func TestFairQueueOrder(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		push []string
		// late are the keys past their deadline.
		late []string
		// held are pods already in progress, taken before the test pops.
		held         []string
		perNamespace int
		want         []string
	}{
		{
			name: "namespaces take turns, in the order they came",
			push: []string{"a/1", "a/2", "a/3", "b/1", "c/1", "b/2"},
			want: []string{"a/1", "b/1", "c/1", "a/2", "b/2", "a/3"},
		},
		{
			name: "a pod past its deadline first",
			push: []string{"a/1", "a/2", "b/1", "b/2"},
			late: []string{"b/2"},
			want: []string{"a/1", "b/1", "b/2", "a/2"},
		},
		{
			name: "late pods of two namespaces take turns",
			push: []string{"a/1", "a/2", "a/3", "b/1"},
			late: []string{"a/1", "a/2", "a/3", "b/1"},
			want: []string{"a/1", "b/1", "a/2", "a/3"},
		},
		{
			name: "the head of a namespace, late, before any turn",
			push: []string{"a/1", "a/2", "b/1"},
			late: []string{"b/1"},
			want: []string{"b/1", "a/1", "a/2"},
		},
		{
			name:         "a namespace at its share is passed over while another waits",
			held:         []string{"a/0", "a/00"},
			perNamespace: 2,
			push:         []string{"a/1", "a/2", "b/1", "b/2", "b/3"},
			want:         []string{"b/1", "b/2", "a/1", "a/2", "b/3"},
		},
		{
			name:         "at its share with no other namespace waiting: taken still",
			held:         []string{"a/0", "a/00"},
			perNamespace: 2,
			push:         []string{"a/1", "a/2"},
			want:         []string{"a/1", "a/2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			due := func(key string) (time.Time, bool) {
				if slices.Contains(tt.late, key) {
					return now.Add(-time.Second), true
				}
				return now.Add(time.Minute), true
			}
			q := newFairQueue(due, func() time.Time { return now }, max(tt.perNamespace, 1000))
			if tt.perNamespace > 0 {
				q.perNamespace = tt.perNamespace
			}
			for _, k := range tt.held {
				q.Push(k)
				q.Pop()
			}
			for _, k := range tt.push {
				q.Push(k)
			}
			var got []string
			for q.Len() > 0 {
				k := q.Pop()
				got = append(got, k)
				if tt.perNamespace > 0 && k == "b/2" {
					q.finished("a/0") // a worker of a comes free
					q.finished("a/00")
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("popped %v, want %v", got, tt.want)
			}
		})
	}
}

// TestOneNamespaceHoldsNoOther: 400 gated pods of one namespace, behind a
// registry that never answers, then one pod of another namespace: that
// pod comes out within gateTimeout and 2 s of its creation. Before the
// queue was fair, it waited behind the 400 (8 workers, each held up to a
// pod's deadline and 2 s more once late: minutes).
func TestOneNamespaceHoldsNoOther(t *testing.T) {
	// A registry that never answers, within a request timeout longer
	// than the test.
	host, caFile := registrytest.Hanging(t)
	const gateTimeout = 3 * time.Second
	args := gatingArgs(host, caFile, config.OnFailureTagRules, gateTimeout)
	args.ImageResolution.RequestTimeout = metav1.Duration{Duration: time.Minute}

	client := fake.NewClientset()
	enforceResourceVersion(client)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := range 400 {
		pod := gatedPod(t, args, fmt.Sprintf("%s/tenant-%d:1", host, i), metav1.Now())
		pod.Name, pod.Namespace, pod.UID = fmt.Sprintf("flood-%d", i), "tenant", ""
		if _, err := client.CoreV1().Pods("tenant").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	p, err := publish.NewResolving(ctx, profile, args, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := New(client, p, events.NewFakeRecorder(1000), Options{})
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	time.Sleep(time.Second) // the workers hold the tenant's pods

	other := gatedPod(t, args, host+"/other:1", metav1.Now())
	other.Namespace, other.UID = "other", ""
	created := time.Now()
	if _, err := client.CoreV1().Pods("other").Create(ctx, other, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, gateTimeout+10*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err := client.CoreV1().Pods("other").Get(ctx, "web", metav1.GetOptions{})
		return err == nil && got.Labels[wellknown.LabelGated] == "", err
	}); err != nil {
		t.Fatalf("the other namespace's pod was not ungated within %s: %v", gateTimeout+10*time.Second, err)
	}
	if took := time.Since(created); took > gateTimeout+2*time.Second {
		t.Errorf("the other namespace's pod came out %s after its creation, past gateTimeout (%s) and 2 s", took.Round(10*time.Millisecond), gateTimeout)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
