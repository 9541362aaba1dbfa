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

package publish

import (
	"context"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
)

// TestLeaseRenewed: a Lease counts as renewed for twice its duration, at
// least minLeaseGrace, after its last renewal; one never renewed (as the
// chart creates it) does not.
func TestLeaseRenewed(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	lease := func(ago time.Duration, seconds *int32) *coordinationv1.Lease {
		return &coordinationv1.Lease{Spec: coordinationv1.LeaseSpec{
			HolderIdentity: ptr.To("scheduler-0"), LeaseDurationSeconds: seconds,
			RenewTime: ptr.To(metav1.NewMicroTime(now.Add(-ago))),
		}}
	}
	tests := []struct {
		name  string
		lease *coordinationv1.Lease
		want  bool
	}{
		{"renewed now", lease(0, ptr.To[int32](15)), true},
		{"within two durations", lease(29*time.Second, ptr.To[int32](15)), true},
		{"past two durations of 15s", lease(31*time.Second, ptr.To[int32](15)), false},
		{"a long duration counts twice", lease(100*time.Second, ptr.To[int32](60)), true},
		{"released (1s): the grace holds", lease(20*time.Second, ptr.To[int32](1)), true},
		{"released long ago", lease(31*time.Second, ptr.To[int32](1)), false},
		{"no duration: the grace", lease(29*time.Second, nil), true},
		{"never renewed", &coordinationv1.Lease{}, false},
		{"no Lease", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := leaseRenewed(tt.lease, now); got != tt.want {
				t.Errorf("leaseRenewed = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestLeaseWatch: unknown until the Lease is listed; then present while it
// is renewed, absent once it ages or is deleted, present again when a
// replica renews it.
func TestLeaseWatch(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	clock := testingclock.NewFakePassiveClock(start)
	renewed := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "windows-aware-scheduler"},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity: ptr.To("scheduler-0"), LeaseDurationSeconds: ptr.To[int32](15),
			RenewTime: ptr.To(metav1.NewMicroTime(start)),
		},
	}
	client := fake.NewClientset(renewed)
	w := WatchLease(klog.Background(), client, "kube-system", "windows-aware-scheduler")
	w.clock = clock
	if _, known := w.Present(); known {
		t.Fatal("known before the informer listed the Lease")
	}
	go w.Run(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), w.informer.HasSynced) {
		t.Fatal("the informer did not sync")
	}
	check := func(step string, want bool) {
		t.Helper()
		present, known := w.Present()
		if !known || present != want {
			t.Errorf("%s: present %v known %v, want present %v known", step, present, known, want)
		}
	}
	check("renewed", true)
	clock.SetTime(start.Add(time.Minute))
	check("a minute without renewal", false)
	renewed = renewed.DeepCopy()
	renewed.Spec.RenewTime = ptr.To(metav1.NewMicroTime(clock.Now()))
	if _, err := client.CoordinationV1().Leases("kube-system").Update(ctx, renewed, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the renewal", func() bool { p, _ := w.Present(); return p })
	if err := client.CoordinationV1().Leases("kube-system").Delete(ctx, renewed.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the deletion", func() bool { p, _ := w.Present(); return !p })
}

// waitFor waits up to 10 seconds for cond, which the informer makes true.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("%s was not seen within 10s", what)
}
