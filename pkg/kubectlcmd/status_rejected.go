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

package kubectlcmd

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/pager"

	"github.com/windows-aware/windows-aware/pkg/safetext"
)

// outOfPrefix starts the reason the kubelet gives a pod it rejects at
// admission for want of a resource: "OutOf" and the resource's name
// (OutOfcpu, OutOfmemory, OutOfpods, OutOfephemeral-storage, OutOf and an
// extended resource's name), as k8s.io/kubernetes/pkg/kubelet/lifecycle
// writes it. Two schedulers whose caches both counted the same room on a
// node bind more than it holds, and the kubelet rejects whichever pod
// arrives second so.
const outOfPrefix = "OutOf"

// KubeletRejected are the pods their node's kubelet rejected for want of
// room, counted by the scheduler that bound them: the pods of a race
// between two schedulers binding onto the same nodes.
type KubeletRejected struct {
	// Count is how many pods were rejected.
	Count int `json:"count"`
	// Reasons count them by the kubelet's reason (OutOfcpu …), most first.
	Reasons []Tally `json:"reasons"`
	// BySchedulers count them by pod.Spec.SchedulerName, most first.
	BySchedulers []Tally `json:"bySchedulers"`
	// Pods are the newest of them, newest first, at most --limit.
	Pods []RejectedPod `json:"pods"`
}

// Tally is how many of the rejected pods share a name: a reason or a
// scheduler.
type Tally struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

// RejectedPod is one pod its node's kubelet rejected for want of room.
type RejectedPod struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Node      string `json:"node"`
	Reason    string `json:"reason"`
	Scheduler string `json:"scheduler"`
	// Rejected is when: the pod's start time, which the kubelet sets as it
	// rejects the pod (its creation when unset).
	Rejected metav1.Time `json:"rejected"`
}

// kubeletRejected reports whether the kubelet rejected pod at admission
// for want of room.
func kubeletRejected(pod *v1.Pod) bool {
	return pod.Status.Phase == v1.PodFailed && len(pod.Status.Reason) > len(outOfPrefix) && strings.HasPrefix(pod.Status.Reason, outOfPrefix)
}

// readKubeletRejected lists the failed pods of the namespace (every one
// with ""), a page at a time, and counts those the kubelet rejected for
// want of room since the given time. The field selector lets the API
// server send only failed pods: status lists every pod only when nodes
// retire, and failed pods are left out of that count, so a list of their
// own costs less than one read shared with it.
func readKubeletRejected(ctx context.Context, client kubernetes.Interface, ns string, since time.Time, limit int) (KubeletRejected, error) {
	r := KubeletRejected{Reasons: []Tally{}, BySchedulers: []Tally{}, Pods: []RejectedPod{}}
	var pods []RejectedPod
	err := pager.New(func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		return client.CoreV1().Pods(ns).List(ctx, opts)
	}).EachListItem(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("status.phase", string(v1.PodFailed)).String()}, func(obj runtime.Object) error {
		pod := obj.(*v1.Pod)
		if !kubeletRejected(pod) {
			return nil
		}
		when := pod.CreationTimestamp
		if pod.Status.StartTime != nil && !pod.Status.StartTime.IsZero() {
			when = *pod.Status.StartTime
		}
		if when.Time.Before(since) {
			return nil
		}
		scheduler := pod.Spec.SchedulerName
		if scheduler == "" {
			// The API server defaults it; a pod without it is the stock
			// scheduler's all the same.
			scheduler = v1.DefaultSchedulerName
		}
		pods = append(pods, RejectedPod{Namespace: pod.Namespace, Name: pod.Name, Node: pod.Spec.NodeName,
			Reason: pod.Status.Reason, Scheduler: scheduler, Rejected: when})
		return nil
	})
	if err != nil {
		return r, fmt.Errorf("listing failed pods: %w", err)
	}
	r.Count = len(pods)
	for _, p := range pods {
		r.Reasons = tally(r.Reasons, p.Reason)
		r.BySchedulers = tally(r.BySchedulers, p.Scheduler)
	}
	byCount := func(a, b Tally) int { return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Name, b.Name)) }
	slices.SortFunc(r.Reasons, byCount)
	slices.SortFunc(r.BySchedulers, byCount)
	slices.SortFunc(pods, func(a, b RejectedPod) int {
		return cmp.Or(b.Rejected.Compare(a.Rejected.Time), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	r.Pods = append(r.Pods, pods[:min(len(pods), max(limit, 0))]...)
	return r, nil
}

// tally counts one more of name.
func tally(ts []Tally, name string) []Tally {
	if i := slices.IndexFunc(ts, func(t Tally) bool { return t.Name == name }); i >= 0 {
		ts[i].Count++
		return ts
	}
	return append(ts, Tally{Name: name, Count: 1})
}

// writeKubeletRejected writes the rejected pods' counts, the newest of
// them, and, when the stock scheduler bound some, the fix: pods that
// name no scheduler made this one's, so that one cache binds them all.
func writeKubeletRejected(w io.Writer, r KubeletRejected, now time.Time) {
	if r.Count == 0 {
		fmt.Fprintln(w, "No pod was rejected by its node's kubelet for want of room (OutOfcpu, OutOfmemory, ...).")
		return
	}
	fmt.Fprintf(w, "%d pod(s) rejected by their node's kubelet for want of room (%s): by scheduler: %s.\n",
		r.Count, tallies(r.Reasons), tallies(r.BySchedulers))
	fmt.Fprintln(w, "REJECTED POD\tNODE\tREASON\tSCHEDULER\tAGO")
	for _, p := range r.Pods {
		fmt.Fprintf(w, "%s/%s\t%s\t%s\t%s\t%s\n", safetext.Args(p.Namespace, p.Name, dash(p.Node), p.Reason, p.Scheduler,
			duration.HumanDuration(now.Sub(p.Rejected.Time)))...)
	}
	if i := slices.IndexFunc(r.BySchedulers, func(t Tally) bool { return t.Name == v1.DefaultSchedulerName }); i >= 0 {
		fmt.Fprintf(w, "hint: the stock scheduler (%s) bound %d of them; beside it, two schedulers' caches fill the same room. "+
			"Turn on the cluster-wide opt-in (publish.clusterWideOptIn=true, or kubectl apply -k manifests/publish/cluster-wide): "+
			"pods that name no scheduler become the windows-aware profile's, and one scheduler binds them "+
			"(docs/install.md, Beside the stock scheduler).\n", v1.DefaultSchedulerName, r.BySchedulers[i].Count)
	}
}

// tallies writes counts as "a 3, b 1", each name escaped: a scheduler's
// name is what the pod's author wrote.
func tallies(ts []Tally) string {
	parts := make([]string, 0, len(ts))
	for _, t := range ts {
		parts = append(parts, fmt.Sprintf("%s %d", safetext.Text(t.Name), t.Count))
	}
	return strings.Join(parts, ", ")
}
