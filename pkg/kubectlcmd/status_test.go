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
	"github.com/windows-aware/windows-aware/pkg/wellknown"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// TestStatus: pools by pool and platform with their Ready nodes; only the
// pods that still carry publish mode's gate; only recent refusals, newest
// first, of the reasons that say a pod was not placed.
func TestStatus(t *testing.T) {
	now := time.Now()
	pooled := func(name, pool string, o fixture.NodeOptions, ready bool) *v1.Node {
		n := fixture.Node(name, o)
		n.Labels["karpenter.sh/nodepool"] = pool
		status := v1.ConditionFalse
		if ready {
			status = v1.ConditionTrue
		}
		n.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: status}}
		return n
	}
	gated := func(name string, gate string, created time.Time) *v1.Pod {
		p := fixture.Pod(name, "windows-aware", "example.com/app:1")
		p.Namespace = "web"
		p.Labels = map[string]string{wellknown.LabelGated: "true"}
		p.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: gate}}
		p.CreationTimestamp = metav1.NewTime(created)
		return p
	}
	event := func(name, pod, reason, kind string, ago time.Duration) *v1.Event {
		return &v1.Event{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "web"}, Type: v1.EventTypeWarning, Reason: reason,
			Message: reason + " of " + pod, InvolvedObject: v1.ObjectReference{Kind: kind, Namespace: "web", Name: pod},
			LastTimestamp: metav1.NewTime(now.Add(-ago))}
	}
	objects := []runtime.Object{
		pooled("l1", "general", fixture.NodeOptions{}, true),
		pooled("w1", "win2022", fixture.NodeOptions{OS: "windows", Build: "10.0.20348"}, true),
		pooled("w2", "win2022", fixture.NodeOptions{OS: "windows", Build: "10.0.20348"}, false),
		gated("held", wellknown.GatePlatform, now.Add(-time.Minute)),
		gated("released", "other.example.com/gate", now.Add(-time.Minute)),
		event("e1", "held", "FailedScheduling", "Pod", 5*time.Minute),
		event("e2", "held", "ImagePlatformsUnknown", "Pod", time.Minute),
		event("e3", "old", "FailedScheduling", "Pod", 3*time.Hour),
		event("e4", "other", "BackOff", "Pod", time.Minute),
	}
	s, err := readStatus(t.Context(), fake.NewClientset(objects...), "web", now.Add(-time.Hour), 20)
	if err != nil {
		t.Fatal(err)
	}
	type pool struct {
		Pool, OS, Build, Release string
		Nodes, Ready             int
	}
	var pools []pool
	for _, p := range s.Pools {
		pools = append(pools, pool{p.Pool, p.OS, p.Build, p.Release, p.Nodes, p.Ready})
	}
	wantPools := []pool{{"general", "linux", "", "", 1, 1}, {"win2022", "windows", "10.0.20348", "ltsc2022", 2, 1}}
	if diff := cmp.Diff(wantPools, pools); diff != "" {
		t.Errorf("pools (-want +got):\n%s", diff)
	}
	if len(s.Gated) != 1 || s.Gated[0].Name != "held" {
		t.Errorf("gated %+v, want only pod held", s.Gated)
	}
	var refusals []string
	for _, r := range s.Refusals {
		refusals = append(refusals, r.Pod+" "+r.Reason)
	}
	if diff := cmp.Diff([]string{"held ImagePlatformsUnknown", "held FailedScheduling"}, refusals); diff != "" {
		t.Errorf("refusals (-want +got):\n%s", diff)
	}
	var out bytes.Buffer
	if err := writeStatus(&out, s, now); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"win2022  windows  10.0.20348 (ltsc2022)", "web/held", "ImagePlatformsUnknown"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, out.String())
		}
	}
}

// TestStatusRetiring: with the 2019 and 2022 pools retiring, status counts
// their nodes and the pods on them, and lists the pods no other node runs.
func TestStatusRetiring(t *testing.T) {
	retiring := func(n *v1.Node) *v1.Node {
		n.Labels[wellknown.LabelRetiring] = wellknown.RetiringValue
		return n
	}
	on := func(name, node, image string) *v1.Pod {
		p := fixture.Pod(name, "windows-aware", image)
		p.Namespace = "web"
		p.Spec.NodeName = node
		return p
	}
	daemon := on("agent", "w2019", "mcr.microsoft.com/windows/servercore:ltsc2019")
	daemon.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "agent", Controller: ptrTo(true)}}
	done := on("job", "w2019", "mcr.microsoft.com/windows/servercore:ltsc2019")
	done.Status.Phase = v1.PodSucceeded
	tests := []struct {
		name        string
		objects     []runtime.Object
		want        *RetiringStatus
		wantInText  []string
		wantNoLines bool
	}{
		{
			name: "no node retiring",
			objects: []runtime.Object{fixture.Node("w2019", fixture.NodeOptions{OS: "windows", Build: "10.0.17763"}),
				on("iis", "w2019", "mcr.microsoft.com/windows/servercore:ltsc2019")},
			wantNoLines: true,
		},
		{
			name: "the 2019 and 2022 pools retiring",
			objects: []runtime.Object{
				retiring(fixture.Node("w2019", fixture.NodeOptions{OS: "windows", Build: "10.0.17763"})),
				retiring(fixture.Node("w2022", fixture.NodeOptions{OS: "windows", Build: "10.0.20348"})),
				fixture.Node("w2025", fixture.NodeOptions{OS: "windows", Build: "10.0.26100"}),
				on("iis", "w2019", "mcr.microsoft.com/windows/servercore:ltsc2019"),
				on("nano", "w2022", "mcr.microsoft.com/windows/nanoserver:ltsc2022"),
				on("new", "w2025", "mcr.microsoft.com/windows/server:ltsc2025"),
				daemon, done,
			},
			want: &RetiringStatus{Nodes: 2, Pods: 2, Staying: []StayingPod{{Namespace: "web", Name: "iis", Node: "w2019",
				Why: "only retiring nodes run it: every node of build 10.0.17763 (ltsc2019) that runs it is labelled windows-aware.x-k8s.io/retiring=true"}}},
			wantInText: []string{"2 retiring node(s) (windows-aware.x-k8s.io/retiring=true), 2 pod(s) on them, 1 cannot move.", "STAYING POD", "web/iis"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := readStatus(t.Context(), fake.NewClientset(tt.objects...), "web", time.Now().Add(-time.Hour), 20)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, s.Retiring); diff != "" {
				t.Errorf("retiring (-want +got):\n%s", diff)
			}
			var out bytes.Buffer
			if err := writeStatus(&out, s, time.Now()); err != nil {
				t.Fatal(err)
			}
			if tt.wantNoLines && strings.Contains(out.String(), "retiring") {
				t.Errorf("text speaks of retiring nodes:\n%s", out.String())
			}
			for _, want := range tt.wantInText {
				if !strings.Contains(out.String(), want) {
					t.Errorf("text lacks %q:\n%s", want, out.String())
				}
			}
		})
	}
}

func ptrTo[T any](v T) *T { return &v }

// TestStatusBuildsChanged: status lists each tag of a recent
// ImageBuildsChanged Event once, by its newest Event, newest first, and
// leaves them out of the refusals.
func TestStatusBuildsChanged(t *testing.T) {
	now := time.Now()
	changed := func(name, pod, image string, ago time.Duration) *v1.Event {
		return &v1.Event{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "web"}, Type: v1.EventTypeWarning, Reason: wellknown.EventImageBuildsChanged,
			Message:        `tag "` + image + `" now lists Windows builds 10.0.26100 (digest sha256:new), not 10.0.20348 as when last read (digest sha256:old)`,
			InvolvedObject: v1.ObjectReference{Kind: "Pod", Namespace: "web", Name: pod}, LastTimestamp: metav1.NewTime(now.Add(-ago))}
	}
	objects := []runtime.Object{
		changed("e1", "a", "example.com/web:1", 30*time.Minute),
		changed("e2", "b", "example.com/web:1", 5*time.Minute),
		changed("e3", "c", "example.com/api:2", 10*time.Minute),
		changed("e4", "d", "example.com/old:1", 3*time.Hour),
	}
	s, err := readStatus(t.Context(), fake.NewClientset(objects...), "web", now.Add(-time.Hour), 20)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range s.BuildsChanged {
		got = append(got, c.Image+" "+c.Pod)
	}
	if diff := cmp.Diff([]string{"example.com/web:1 b", "example.com/api:2 c"}, got); diff != "" {
		t.Errorf("tags whose builds changed (-want +got):\n%s", diff)
	}
	if len(s.Refusals) != 0 {
		t.Errorf("refusals %+v, want none", s.Refusals)
	}
	var out bytes.Buffer
	if err := writeStatus(&out, s, now); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"TAG WHOSE BUILDS CHANGED", "example.com/web:1", "web/b", "not 10.0.20348"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, out.String())
		}
	}
}

// TestPoolsNameTheProfilesReleases: a pool's build is named by the
// releases it is given, an administrator's extraReleases among them, as
// the same screen's retiring section names it.
func TestPoolsNameTheProfilesReleases(t *testing.T) {
	nodes := []*v1.Node{fixture.Node("w1", fixture.NodeOptions{OS: "windows", Build: "10.0.30000"})}
	catalog, err := windows.NewCatalog([]windows.Release{{Token: "ltsc2028", Build: windows.Build{Major: 10, Minor: 0, Number: 30000}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := pools(nodes, catalog); len(got) != 1 || got[0].Release != "ltsc2028" {
		t.Errorf("pools = %+v, want one pool of release ltsc2028", got)
	}
	if got := pools(nodes, windows.DefaultCatalog()); len(got) != 1 || got[0].Release != "" {
		t.Errorf("pools without the extra release = %+v, want the build unnamed", got)
	}
}
