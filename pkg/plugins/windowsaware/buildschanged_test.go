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

package windowsaware

import (
	"context"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/imagefacts"
	"github.com/windows-aware/windows-aware/pkg/imageinspect"
	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// TestImageBuildsChangedEvent: a tag re-pushed on another build is read
// again past its tag TTL; the next pod that uses it gets one Warning Event
// naming the image, the old and new builds and both digests, and is placed
// by the new build; the pods after it get none.
func TestImageBuildsChangedEvent(t *testing.T) {
	s := registrytest.New(t, registrytest.WithTLS())
	oldDigest := s.Push(t, "web:1", registrytest.WindowsImage(t, osv2019))
	args := s.ResolvingArgs(config.ResolutionWindows, config.OnFailureTagRules, 10*time.Second)
	// Every read is past the TTL: each PreEnqueue refreshes the tag.
	args.ImageResolution.Cache.TagTTL.Duration = time.Nanosecond
	rp := newResolutionFramework(t, args, testNodes())
	ctx := context.Background()
	ref := s.Ref("web:1")
	podOf := func(name string) *v1.Pod {
		p := withOS(pod(ref), v1.Windows)
		p.Name, p.UID = name, types.UID("uid-"+name)
		return p
	}
	lookup := func() imageinspect.Result {
		r, _ := rp.pl.resolution.facts.Resolver().Lookup(ref, imagefacts.PullSecretsOf(podOf("any")))
		return r
	}
	// awaitDigest lets PreEnqueue ask for the tag until its facts are of
	// digest (polled, with a safety deadline).
	awaitDigest := func(p *v1.Pod, digest string) {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for lookup().Digest != digest {
			if time.Now().After(deadline) {
				t.Fatalf("the tag's facts are of %q, want %q", lookup().Digest, digest)
			}
			rp.pl.PreEnqueue(ctx, p)
			time.Sleep(10 * time.Millisecond)
		}
	}
	changedEvents := func() []string {
		var out []string
		for _, e := range rp.recorded() {
			if strings.Contains(e, wellknown.EventImageBuildsChanged) {
				out = append(out, e)
			}
		}
		return out
	}

	first := podOf("first")
	awaitDigest(first, oldDigest)
	if got, status := feasibleNames(t, rp, first, testNodes()); status != nil || !strings.HasPrefix(strings.Join(got, ","), "win2019") {
		t.Fatalf("before the retag: feasible %v (%v), want the 2019 nodes", got, status)
	}
	if got := changedEvents(); len(got) != 0 {
		t.Fatalf("Events before the retag: %v", got)
	}

	newDigest := s.Push(t, "web:1", registrytest.WindowsImage(t, osv2022))
	next := podOf("next")
	awaitDigest(next, newDigest)
	for _, p := range []*v1.Pod{next, next, podOf("later")} {
		if got, status := feasibleNames(t, rp, p, testNodes()); status != nil || !strings.Contains(strings.Join(got, ","), "win2022") {
			t.Fatalf("after the retag: pod %s feasible on %v (%v), want the nodes that run 2022 images", p.Name, got, status)
		}
	}
	got := changedEvents()
	if len(got) != 1 {
		t.Fatalf("%d %s Events, want 1: %v", len(got), wellknown.EventImageBuildsChanged, got)
	}
	for _, want := range []string{"Warning " + wellknown.EventImageBuildsChanged, ref, "10.0.20348 (digest " + newDigest, "not 10.0.17763", oldDigest} {
		if !strings.Contains(got[0], want) {
			t.Errorf("Event %q does not say %q", got[0], want)
		}
	}
}
