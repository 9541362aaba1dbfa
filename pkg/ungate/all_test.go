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
	"strings"
	"sync"
	"testing"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/windows-aware/windows-aware/pkg/publish"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// markedPod is a pod as the webhook leaves it: our gate between others,
// and the label.
func markedPod(ns, name string, gates ...string) *v1.Pod {
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(ns + "/" + name), ResourceVersion: "1",
			Labels: map[string]string{"app": name}},
		Spec: v1.PodSpec{SchedulerName: "windows-aware", Containers: []v1.Container{{Name: "c", Image: "web:1"}}},
	}
	for _, g := range gates {
		pod.Spec.SchedulingGates = append(pod.Spec.SchedulingGates, v1.PodSchedulingGate{Name: g})
		if g == wellknown.GatePlatform {
			pod.Labels[wellknown.LabelGated] = "true"
		}
	}
	return pod
}

// pageLists makes the fake API server page its pod lists as the real one
// does (Limit, Continue; the fake returns everything at once), and
// records each list's options.
func pageLists(client *fake.Clientset, calls *[]metav1.ListOptions) {
	// The controller's informer and its sweep list at once; calls is read
	// once they have stopped.
	var mu sync.Mutex
	client.PrependReactor("list", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
		opts := action.(k8stesting.ListActionImpl).ListOptions
		mu.Lock()
		*calls = append(*calls, opts)
		mu.Unlock()
		obj, err := client.Tracker().List(v1.SchemeGroupVersion.WithResource("pods"), v1.SchemeGroupVersion.WithKind("Pod"), action.GetNamespace())
		if err != nil {
			return true, nil, err
		}
		sel, err := labels.Parse(opts.LabelSelector)
		if err != nil {
			return true, nil, err
		}
		var items []v1.Pod
		for _, p := range obj.(*v1.PodList).Items {
			if sel.Matches(labels.Set(p.Labels)) {
				items = append(items, p)
			}
		}
		slices.SortFunc(items, func(a, b v1.Pod) int { return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name) })
		from := 0
		if opts.Continue != "" {
			// The token is the key of the last pod sent, as the API
			// server's is, so that pods leaving the selector shift nothing.
			from, _ = slices.BinarySearchFunc(items, opts.Continue, func(p v1.Pod, key string) int {
				return strings.Compare(p.Namespace+"/"+p.Name, key)
			})
			if from < len(items) && items[from].Namespace+"/"+items[from].Name == opts.Continue {
				from++
			}
		}
		page := &v1.PodList{}
		to := len(items)
		if opts.Limit > 0 && from+int(opts.Limit) < len(items) {
			to = from + int(opts.Limit)
			page.Continue = items[to-1].Namespace + "/" + items[to-1].Name
		}
		page.Items = items[from:to]
		return true, page, nil
	})
}

func getPod(t *testing.T, client *fake.Clientset, ns, name string) *v1.Pod {
	t.Helper()
	pod, err := client.CoreV1().Pods(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return pod
}

func gateNames(pod *v1.Pod) []string {
	var out []string
	for _, g := range pod.Spec.SchedulingGates {
		out = append(out, g.Name)
	}
	return out
}

// TestRemoveAll: every pod carrying our gate loses it and its label, and
// nothing else: other gates stay in their order, other labels stay. A pod
// that carries the gate without the label is found too: the pods are read
// by no selector, as no selector finds a gate.
func TestRemoveAll(t *testing.T) {
	client := fake.NewClientset(
		markedPod("a", "only", wellknown.GatePlatform),
		markedPod("a", "between", "example.com/first", wellknown.GatePlatform, "example.com/last"),
		markedPod("b", "other-gate", "example.com/first"),
		markedPod("b", "plain"),
	)
	// Lost the gate elsewhere, kept the label.
	labelled := markedPod("c", "labelled")
	labelled.Labels[wellknown.LabelGated] = "true"
	if err := client.Tracker().Add(labelled); err != nil {
		t.Fatal(err)
	}
	// Gated without the label (created so, or the label removed since).
	unlabelled := markedPod("c", "unlabelled", "example.com/first", wellknown.GatePlatform)
	delete(unlabelled.Labels, wellknown.LabelGated)
	if err := client.Tracker().Add(unlabelled); err != nil {
		t.Fatal(err)
	}
	enforceResourceVersion(client)
	var lists []metav1.ListOptions
	pageLists(client, &lists)

	res, err := RemoveAll(context.Background(), client, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := (RemoveAllResult{Ungated: 3, Unlabelled: 1}); res != want {
		t.Errorf("result %+v, want %+v", res, want)
	}
	for _, c := range []struct {
		ns, name string
		gates    []string
	}{
		{"a", "only", nil},
		{"a", "between", []string{"example.com/first", "example.com/last"}},
		{"b", "other-gate", []string{"example.com/first"}},
		{"b", "plain", nil},
		{"c", "labelled", nil},
		{"c", "unlabelled", []string{"example.com/first"}},
	} {
		pod := getPod(t, client, c.ns, c.name)
		if got := gateNames(pod); !slices.Equal(got, c.gates) {
			t.Errorf("%s/%s: gates %v, want %v", c.ns, c.name, got, c.gates)
		}
		if _, ok := pod.Labels[wellknown.LabelGated]; ok {
			t.Errorf("%s/%s keeps the label %s", c.ns, c.name, wellknown.LabelGated)
		}
		if pod.Labels["app"] != c.name || pod.Spec.SchedulerName != "windows-aware" || len(pod.Spec.Containers) != 1 {
			t.Errorf("%s/%s: changed beyond the gate: %+v", c.ns, c.name, pod)
		}
	}
	if len(lists) != 1 || lists[0].LabelSelector != "" || lists[0].Limit != DefaultPageSize {
		t.Errorf("lists %+v, want one of every pod, %d at a time", lists, DefaultPageSize)
	}
}

// TestRemoveAllPages: a cluster with more gated pods than a page is read
// page by page, each pod patched once.
func TestRemoveAllPages(t *testing.T) {
	client := fake.NewClientset()
	const n = 23
	for i := range n {
		if err := client.Tracker().Add(markedPod(fmt.Sprintf("ns%d", i%3), fmt.Sprintf("pod-%02d", i), wellknown.GatePlatform)); err != nil {
			t.Fatal(err)
		}
	}
	enforceResourceVersion(client)
	var lists []metav1.ListOptions
	pageLists(client, &lists)
	patches := 0
	client.PrependReactor("patch", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		patches++
		return false, nil, nil
	})

	res, err := RemoveAll(context.Background(), client, 5)
	if err != nil {
		t.Fatal(err)
	}
	if res.Ungated != n || patches != n {
		t.Errorf("ungated %d with %d patches, want %d", res.Ungated, patches, n)
	}
	if len(lists) != 5 {
		t.Errorf("%d list calls, want 5 pages of 5", len(lists))
	}
	for _, l := range lists {
		if l.Limit != 5 {
			t.Errorf("a list of %d, want 5", l.Limit)
		}
	}
	left, err := client.CoreV1().Pods("").List(context.Background(), metav1.ListOptions{LabelSelector: wellknown.LabelGated})
	if err != nil {
		t.Fatal(err)
	}
	if len(left.Items) != 0 {
		t.Errorf("%d pods keep the label", len(left.Items))
	}
}

// TestRemoveAllRetries: a pod changed after the list (another writer adds
// a gate) is read again and patched anew, keeping the new gate; an expired
// continue token starts the list again.
func TestRemoveAllRetries(t *testing.T) {
	client := fake.NewClientset()
	for _, name := range []string{"a", "b", "c"} {
		if err := client.Tracker().Add(markedPod("default", name, wellknown.GatePlatform)); err != nil {
			t.Fatal(err)
		}
	}
	enforceResourceVersion(client)
	var lists []metav1.ListOptions
	pageLists(client, &lists)
	expired := false
	client.PrependReactor("list", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
		if action.(k8stesting.ListActionImpl).ListOptions.Continue != "" && !expired {
			expired = true
			return true, nil, apierrors.NewResourceExpired("the continue token is too old")
		}
		return false, nil, nil
	})
	changed := false
	client.PrependReactor("patch", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
		if action.(k8stesting.PatchAction).GetName() != "b" || changed {
			return false, nil, nil
		}
		changed = true
		obj, err := client.Tracker().Get(v1.SchemeGroupVersion.WithResource("pods"), "default", "b")
		if err != nil {
			return true, nil, err
		}
		pod := obj.(*v1.Pod).DeepCopy()
		pod.Spec.SchedulingGates = append(pod.Spec.SchedulingGates, v1.PodSchedulingGate{Name: "example.com/late"})
		pod.ResourceVersion = "2"
		return false, nil, client.Tracker().Update(v1.SchemeGroupVersion.WithResource("pods"), pod, "default")
	})

	res, err := RemoveAll(context.Background(), client, 1)
	if err != nil {
		t.Fatal(err)
	}
	if res.Ungated != 3 || res.Failed != 0 {
		t.Errorf("result %+v, want 3 ungated", res)
	}
	if !changed || !expired {
		t.Fatalf("the conflict (%v) or the expired token (%v) never happened", changed, expired)
	}
	if got := gateNames(getPod(t, client, "default", "b")); !slices.Equal(got, []string{"example.com/late"}) {
		t.Errorf("b's gates %v, want the late one alone", got)
	}
}

// TestRemoveAllFailures: a pod the API server refuses to patch is named in
// the error, and the others are still done.
func TestRemoveAllFailures(t *testing.T) {
	client := fake.NewClientset(markedPod("default", "a", wellknown.GatePlatform), markedPod("default", "b", wellknown.GatePlatform))
	enforceResourceVersion(client)
	var lists []metav1.ListOptions
	pageLists(client, &lists)
	client.PrependReactor("patch", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
		if action.(k8stesting.PatchAction).GetName() == "a" {
			return true, nil, apierrors.NewForbidden(v1.Resource("pods"), "a", textError("a policy says no"))
		}
		return false, nil, nil
	})
	res, err := RemoveAll(context.Background(), client, 0)
	if err == nil || !strings.Contains(err.Error(), "default/a") || !strings.Contains(err.Error(), "a policy says no") {
		t.Errorf("error %v, want one naming default/a and the refusal", err)
	}
	if want := (RemoveAllResult{Ungated: 1, Failed: 1}); res != want {
		t.Errorf("result %+v, want %+v", res, want)
	}
	if publish.Gated(getPod(t, client, "default", "a")) == false || publish.Gated(getPod(t, client, "default", "b")) {
		t.Error("want a gated, b not")
	}
}
