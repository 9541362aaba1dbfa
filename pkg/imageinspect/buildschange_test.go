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

package imageinspect

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/component-base/metrics/testutil"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
)

// TestBuildsChangeOnRetag: a tag re-pushed between two resolutions, the
// second past the tag TTL, carries the change of its Windows builds, with
// the digests then and now, when the builds differ; the change is claimed
// once, and counted once.
func TestBuildsChangeOnRetag(t *testing.T) {
	windowsIndex := func(t *testing.T, versions ...string) any {
		var entries []registrytest.Entry
		for _, v := range versions {
			entries = append(entries, registrytest.Entry{OS: "windows", Arch: "amd64", OSVersion: v})
		}
		return registrytest.Index(t, registrytest.OCI, entries...)
	}
	tests := []struct {
		name          string
		first, second func(t *testing.T) any
		want          *BuildsChange // nil: no change; digests filled in below
	}{
		{
			name:   "rebuilt on another build",
			first:  func(t *testing.T) any { return registrytest.WindowsImage(t, v17763) },
			second: func(t *testing.T) any { return registrytest.WindowsImage(t, v20348) },
			want:   &BuildsChange{Old: []string{"10.0.17763"}, New: []string{"10.0.20348"}},
		},
		{
			name:   "a build added to the index",
			first:  func(t *testing.T) any { return windowsIndex(t, v17763) },
			second: func(t *testing.T) any { return windowsIndex(t, v17763, v20348) },
			want:   &BuildsChange{Old: []string{"10.0.17763"}, New: []string{"10.0.17763", "10.0.20348"}},
		},
		{
			name:   "no Windows platform left",
			first:  func(t *testing.T) any { return registrytest.WindowsImage(t, v17763) },
			second: func(t *testing.T) any { return registrytest.Image(t, registrytest.OCI, "linux", "amd64", "") },
			want:   &BuildsChange{Old: []string{"10.0.17763"}},
		},
		{
			name:   "a new revision of the same build: no change",
			first:  func(t *testing.T) any { return registrytest.WindowsImage(t, v17763) },
			second: func(t *testing.T) any { return registrytest.WindowsImage(t, "10.0.17763.6054") },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := registrytest.New(t)
			oldDigest := s.Push(t, "app:1", tt.first(t))
			clk := clocktesting.NewFakePassiveClock(time.Now())
			h := newHarness(t, Config{Registries: []Registry{registryFor(s)}, TagTTL: time.Minute, Clock: clk})
			ref := s.Ref("app:1")
			if first := h.await(t, ref, PullSecrets{}); first.State != StateResolved || first.Changed != nil {
				t.Fatalf("first resolution: %+v", first)
			}
			counted, _ := testutil.GetCounterMetricValue(buildsChangedTotal)

			newDigest := s.Push(t, "app:1", tt.second(t))
			clk.SetTime(clk.Now().Add(2 * time.Minute))
			h.Want(ref, "", PullSecrets{})
			res := h.awaitState(t, ref, PullSecrets{}, func(res Result) bool { return res.Digest == newDigest })

			var want *BuildsChange
			if tt.want != nil {
				want = &BuildsChange{Old: tt.want.Old, New: tt.want.New, OldDigest: oldDigest, Digest: newDigest}
			}
			if diff := cmp.Diff(want, res.Changed, cmpopts.IgnoreUnexported(BuildsChange{}), cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("Changed (-want +got):\n%s", diff)
			}
			wantCount := 0.0
			if want != nil {
				wantCount = 1
			}
			if got, _ := testutil.GetCounterMetricValue(buildsChangedTotal); got-counted != wantCount {
				t.Errorf("%s counted %v times, want %v", buildsChangedTotal.Name, got-counted, wantCount)
			}
			if want == nil {
				return
			}
			if !res.Changed.Claim() {
				t.Errorf("first Claim = false")
			}
			again, _ := h.Lookup(ref, PullSecrets{})
			if again.Changed.Claim() {
				t.Errorf("second Claim = true: the change would be told twice")
			}
			if digest, ok := h.Lookup(s.Ref("app@"+newDigest), PullSecrets{}); !ok || digest.Changed != nil {
				t.Errorf("the digest's facts (known %v) carry the tag's change", ok)
			}
		})
	}
}

// TestBuildsChangeKeptUntilTold: a change nobody has told of yet survives
// a later refresh that finds the same builds; once told, that refresh
// clears it.
func TestBuildsChangeKeptUntilTold(t *testing.T) {
	s := registrytest.New(t)
	s.Push(t, "app:1", registrytest.WindowsImage(t, v17763))
	clk := clocktesting.NewFakePassiveClock(time.Now())
	h := newHarness(t, Config{Registries: []Registry{registryFor(s)}, TagTTL: time.Minute, Clock: clk})
	ref := s.Ref("app:1")
	h.await(t, ref, PullSecrets{})
	refresh := func(digest string) Result {
		clk.SetTime(clk.Now().Add(2 * time.Minute))
		h.Want(ref, "", PullSecrets{})
		return h.awaitState(t, ref, PullSecrets{}, func(res Result) bool { return res.Digest == digest && !res.Stale })
	}
	moved := refresh(s.Push(t, "app:1", registrytest.WindowsImage(t, v20348)))
	if moved.Changed == nil {
		t.Fatal("no change after the retag")
	}
	kept := refresh(s.Push(t, "app:1", registrytest.WindowsImage(t, "10.0.20348.3000")))
	if kept.Changed != moved.Changed {
		t.Fatalf("an untold change was dropped by a refresh of the same builds: %+v", kept.Changed)
	}
	kept.Changed.Claim()
	if told := refresh(s.Push(t, "app:1", registrytest.WindowsImage(t, "10.0.20348.3001"))); told.Changed != nil {
		t.Errorf("a told change outlives the next refresh: %+v", told.Changed)
	}
}
