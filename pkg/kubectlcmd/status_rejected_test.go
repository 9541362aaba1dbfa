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
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/windows-aware/windows-aware/internal/fixture"
)

// rejectedPod is a pod of namespace web bound by scheduler onto node w1
// that the kubelet left in phase with reason, its start time ago.
func rejectedPod(name, scheduler string, phase v1.PodPhase, reason string, now time.Time, ago time.Duration) *v1.Pod {
	p := fixture.Pod(name, scheduler, "example.com/app:1")
	p.Namespace = "web"
	p.Spec.NodeName = "w1"
	p.CreationTimestamp = metav1.NewTime(now.Add(-ago - time.Second))
	p.Status = v1.PodStatus{Phase: phase, Reason: reason, StartTime: ptrTo(metav1.NewTime(now.Add(-ago)))}
	return p
}

// TestStatusKubeletRejected: status counts the pods the kubelet rejected
// for want of room (phase Failed, reason OutOf and a resource) by the
// scheduler that bound them, lists the newest first, at most --limit; a
// pod that failed for another reason, a running or pending pod, one
// rejected before --since and one of another namespace do not count.
func TestStatusKubeletRejected(t *testing.T) {
	now := time.Now()
	failed := func(name, scheduler, reason string, ago time.Duration) *v1.Pod {
		return rejectedPod(name, scheduler, v1.PodFailed, reason, now, ago)
	}
	elsewhere := failed("elsewhere", "default-scheduler", "OutOfcpu", time.Minute)
	elsewhere.Namespace = "other"
	noStart := failed("no-start", "windows-aware", "OutOfcpu", 0)
	noStart.Status.StartTime = nil
	noStart.CreationTimestamp = metav1.NewTime(now.Add(-3 * time.Minute))
	tests := []struct {
		name    string
		objects []runtime.Object
		limit   int
		want    KubeletRejected
	}{
		{
			name: "none",
			objects: []runtime.Object{
				rejectedPod("running", "default-scheduler", v1.PodRunning, "", now, time.Minute),
			},
			limit: 20,
			want:  KubeletRejected{Reasons: []Tally{}, BySchedulers: []Tally{}, Pods: []RejectedPod{}},
		},
		{
			name: "pods of several schedulers, newest first",
			objects: []runtime.Object{
				// Listed first, counted last: the counts are sorted.
				failed("0-gpu", "my-scheduler", "OutOfexample.com/gpu", 10*time.Minute),
				failed("a", "default-scheduler", "OutOfcpu", 5*time.Minute),
				failed("b", "default-scheduler", "OutOfmemory", time.Minute),
				failed("c", "windows-aware", "OutOfcpu", 2*time.Minute),
				// The API server defaults an empty schedulerName to the
				// stock scheduler's.
				failed("d", "", "OutOfpods", 4*time.Minute),
				noStart,
			},
			limit: 20,
			want: KubeletRejected{
				Count:        6,
				Reasons:      []Tally{{"OutOfcpu", 3}, {"OutOfexample.com/gpu", 1}, {"OutOfmemory", 1}, {"OutOfpods", 1}},
				BySchedulers: []Tally{{"default-scheduler", 3}, {"windows-aware", 2}, {"my-scheduler", 1}},
				Pods: []RejectedPod{
					{Namespace: "web", Name: "b", Node: "w1", Reason: "OutOfmemory", Scheduler: "default-scheduler", Rejected: metav1.NewTime(now.Add(-time.Minute))},
					{Namespace: "web", Name: "c", Node: "w1", Reason: "OutOfcpu", Scheduler: "windows-aware", Rejected: metav1.NewTime(now.Add(-2 * time.Minute))},
					{Namespace: "web", Name: "no-start", Node: "w1", Reason: "OutOfcpu", Scheduler: "windows-aware", Rejected: metav1.NewTime(now.Add(-3 * time.Minute))},
					{Namespace: "web", Name: "d", Node: "w1", Reason: "OutOfpods", Scheduler: "default-scheduler", Rejected: metav1.NewTime(now.Add(-4 * time.Minute))},
					{Namespace: "web", Name: "a", Node: "w1", Reason: "OutOfcpu", Scheduler: "default-scheduler", Rejected: metav1.NewTime(now.Add(-5 * time.Minute))},
					{Namespace: "web", Name: "0-gpu", Node: "w1", Reason: "OutOfexample.com/gpu", Scheduler: "my-scheduler", Rejected: metav1.NewTime(now.Add(-10 * time.Minute))},
				},
			},
		},
		{
			name: "at most --limit listed, all counted",
			objects: []runtime.Object{
				failed("a", "default-scheduler", "OutOfcpu", 3*time.Minute),
				failed("b", "default-scheduler", "OutOfcpu", time.Minute),
				failed("c", "windows-aware", "OutOfcpu", 2*time.Minute),
			},
			limit: 1,
			want: KubeletRejected{
				Count:        3,
				Reasons:      []Tally{{"OutOfcpu", 3}},
				BySchedulers: []Tally{{"default-scheduler", 2}, {"windows-aware", 1}},
				Pods: []RejectedPod{
					{Namespace: "web", Name: "b", Node: "w1", Reason: "OutOfcpu", Scheduler: "default-scheduler", Rejected: metav1.NewTime(now.Add(-time.Minute))},
				},
			},
		},
		{
			name: "other failures, live pods, old rejections and other namespaces do not count",
			objects: []runtime.Object{
				failed("counted", "windows-aware", "OutOfmemory", time.Minute),
				failed("evicted", "default-scheduler", "Evicted", time.Minute),
				failed("affinity", "default-scheduler", "NodeAffinity", time.Minute),
				failed("admission", "default-scheduler", "UnexpectedAdmissionError", time.Minute),
				failed("bare-prefix", "default-scheduler", "OutOf", time.Minute),
				failed("lower-case", "default-scheduler", "outofcpu", time.Minute),
				failed("crashed", "default-scheduler", "", time.Minute),
				failed("old", "default-scheduler", "OutOfcpu", 2*time.Hour),
				elsewhere,
				// The fake clientset ignores the field selector, as an
				// API server that did not honour it would: the phase is
				// checked again.
				rejectedPod("running", "default-scheduler", v1.PodRunning, "OutOfcpu", now, time.Minute),
				rejectedPod("pending", "default-scheduler", v1.PodPending, "OutOfcpu", now, time.Minute),
				rejectedPod("done", "default-scheduler", v1.PodSucceeded, "OutOfcpu", now, time.Minute),
			},
			limit: 20,
			want: KubeletRejected{
				Count:        1,
				Reasons:      []Tally{{"OutOfmemory", 1}},
				BySchedulers: []Tally{{"windows-aware", 1}},
				Pods: []RejectedPod{
					{Namespace: "web", Name: "counted", Node: "w1", Reason: "OutOfmemory", Scheduler: "windows-aware", Rejected: metav1.NewTime(now.Add(-time.Minute))},
				},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := readStatus(t.Context(), fake.NewClientset(tt.objects...), "web", now.Add(-time.Hour), tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, s.KubeletRejected); diff != "" {
				t.Errorf("kubelet-rejected pods (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStatusKubeletRejectedText: the counts by reason and by scheduler on
// one line, the newest pods in a table, and the cluster-wide opt-in named
// only when the stock scheduler bound some of them; a line that says none
// when none was rejected; the JSON carries the same.
func TestStatusKubeletRejectedText(t *testing.T) {
	now := time.Now()
	stock := KubeletRejected{
		Count:        4,
		Reasons:      []Tally{{"OutOfcpu", 3}, {"OutOfmemory", 1}},
		BySchedulers: []Tally{{"default-scheduler", 3}, {"windows-aware", 1}},
		Pods: []RejectedPod{
			{Namespace: "web", Name: "api-1", Node: "w1", Reason: "OutOfcpu", Scheduler: "default-scheduler", Rejected: metav1.NewTime(now.Add(-2 * time.Minute))},
			{Namespace: "web", Name: "iis-2", Node: "w2", Reason: "OutOfmemory", Scheduler: "windows-aware", Rejected: metav1.NewTime(now.Add(-5 * time.Minute))},
		},
	}
	ours := KubeletRejected{
		Count:        1,
		Reasons:      []Tally{{"OutOfcpu", 1}},
		BySchedulers: []Tally{{"windows-aware", 1}},
		Pods:         []RejectedPod{{Namespace: "web", Name: "iis-2", Node: "w2", Reason: "OutOfcpu", Scheduler: "windows-aware", Rejected: metav1.NewTime(now.Add(-time.Minute))}},
	}
	const hint = "hint: the stock scheduler (default-scheduler) bound 3 of them; beside it, two schedulers' caches fill the same room. " +
		"Turn on the cluster-wide opt-in (publish.clusterWideOptIn=true, or kubectl apply -k manifests/publish/cluster-wide): " +
		"pods that name no scheduler become the windows-aware profile's, and one scheduler binds them (docs/install.md, Beside the stock scheduler)."
	tests := []struct {
		name      string
		rejected  KubeletRejected
		wantLines []string
		notIn     []string
	}{
		{
			name:     "some bound by the stock scheduler",
			rejected: stock,
			wantLines: []string{
				"4 pod(s) rejected by their node's kubelet for want of room (OutOfcpu 3, OutOfmemory 1): by scheduler: default-scheduler 3, windows-aware 1.",
				"REJECTED POD  NODE  REASON       SCHEDULER          AGO",
				"web/api-1     w1    OutOfcpu     default-scheduler  2m",
				"web/iis-2     w2    OutOfmemory  windows-aware      5m",
				hint,
			},
		},
		{
			name:     "all bound by windows-aware: no hint",
			rejected: ours,
			wantLines: []string{
				"1 pod(s) rejected by their node's kubelet for want of room (OutOfcpu 1): by scheduler: windows-aware 1.",
				"web/iis-2     w2    OutOfcpu  windows-aware  60s",
			},
			notIn: []string{"hint:", "clusterWideOptIn"},
		},
		{
			name:      "none",
			rejected:  KubeletRejected{},
			wantLines: []string{"No pod was rejected by its node's kubelet for want of room (OutOfcpu, OutOfmemory, ...)."},
			notIn:     []string{"REJECTED POD", "hint:"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := writeStatus(&out, &Status{KubeletRejected: tt.rejected}, now); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(out.String(), "\n")
			for _, want := range tt.wantLines {
				if !containsLine(lines, want) {
					t.Errorf("text lacks the line %q:\n%s", want, out.String())
				}
			}
			for _, not := range tt.notIn {
				if strings.Contains(out.String(), not) {
					t.Errorf("text holds %q:\n%s", not, out.String())
				}
			}
		})
	}

	var out bytes.Buffer
	if err := writeStructured(&out, OutputJSON, &Status{KubeletRejected: stock}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"kubeletRejected": {`, `"count": 4`, `"bySchedulers": [`, `"name": "default-scheduler"`, `"scheduler": "windows-aware"`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("JSON lacks %s:\n%s", want, out.String())
		}
	}
}

// containsLine reports whether one of lines is want, trailing blanks
// aside (the tabwriter pads the last cell of none, but a row may end in
// padding before a tab of the next block).
func containsLine(lines []string, want string) bool {
	for _, l := range lines {
		if strings.TrimRight(l, " ") == want {
			return true
		}
	}
	return false
}
