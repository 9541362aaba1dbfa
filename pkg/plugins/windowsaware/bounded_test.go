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
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// manyBuildsIndex is a manifest list of n Windows entries of distinct
// builds from 10.0.20348 up, every one pointing at child: the largest
// index an image may have, every entry a build the decisions weigh.
func manyBuildsIndex(child string, n int) []byte {
	var b strings.Builder
	b.WriteString(`{"schemaVersion":2,"mediaType":"application/vnd.docker.distribution.manifest.list.v2+json","manifests":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"mediaType":"application/vnd.docker.distribution.manifest.v2+json","digest":%q,"size":1,"platform":{"architecture":"amd64","os":"windows","os.version":"10.0.%d.1"}}`,
			child, 20348+i)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// warmIndexPod returns a plugin whose resolver knows a Windows pod's one
// image: a single-build image (entries 0), or an index of that many
// distinct builds, with maxIndexEntries at least that.
func warmIndexPod(tb testing.TB, entries int) (*WindowsAware, *v1.Pod) {
	tb.Helper()
	s := registrytest.New(tb, registrytest.WithTLS())
	child := s.Push(tb, "app:single", registrytest.WindowsImage(tb, osv2022))
	tag := "app:single"
	if entries > 0 {
		tag = fmt.Sprintf("app:index-%d", entries)
		s.PushRawManifest(tb, tag, "application/vnd.docker.distribution.manifest.list.v2+json", manyBuildsIndex(child, entries))
	}
	args := s.ResolvingArgs(config.ResolutionWindows, config.OnFailureTagRules, 10*time.Second)
	args.ImageResolution.MaxIndexEntries = int32(max(entries, 256))
	rp := newResolutionFramework(tb, args, testNodes())
	p := withOS(pod(s.Ref(tag)), v1.Windows)
	deadline := time.Now().Add(10 * time.Second)
	for !rp.pl.PreEnqueue(context.Background(), p).IsSuccess() {
		if time.Now().After(deadline) {
			tb.Fatal("image not resolved within 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if d := rp.pl.decider.Decide(p, rp.pl.facts(true)); d.Conflict() != "" || len(d.Images()) != 1 || len(d.Images()[0].Platforms) != max(entries, 1) {
		tb.Fatalf("decision %+v, want one image of %d platforms", d, max(entries, 1))
	}
	return rp.pl, p
}

// BenchmarkResolvedIndex: PreFilter, the node queueing hint and PreEnqueue
// for a pod whose image is resolved to an index at the default entry
// limit (256 distinct builds) and at the highest limit the args allow,
// against a single-build image. What is read of an image's entries is
// read once per image, so PreFilter, the hint and PreEnqueue cost about
// the same whatever the index; only judging a node that no entry fits
// reads every entry (NodeHintNoFit), linear in them.
func BenchmarkResolvedIndex(b *testing.B) {
	for _, entries := range []int{0, 256, 10000} {
		name := "single-build"
		if entries > 0 {
			name = fmt.Sprintf("index-%d", entries)
		}
		pl, p := warmIndexPod(b, entries)
		ctx := context.Background()
		b.Run("PreFilter/"+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, s := pl.PreFilter(ctx, newState(), p, nil); !s.IsSuccess() {
					b.Fatal(s)
				}
			}
		})
		oldNode := fixture.LinuxNode("n")
		newNode := fixture.WindowsNode("n", "10.0.20348")
		b.Run("NodeHint/"+name, func(b *testing.B) {
			b.ReportAllocs()
			logger := klog.Background()
			for b.Loop() {
				if _, err := pl.isSchedulableAfterNodeChange(logger, p, oldNode, newNode); err != nil {
					b.Fatal(err)
				}
			}
		})
		// A node no entry runs on: Fit reads every entry of the image.
		noFit := fixture.WindowsNode("n", "10.0.17763")
		b.Run("NodeHintNoFit/"+name, func(b *testing.B) {
			b.ReportAllocs()
			logger := klog.Background()
			for b.Loop() {
				if _, err := pl.isSchedulableAfterNodeChange(logger, p, oldNode, noFit); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("PreEnqueue/"+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !pl.PreEnqueue(ctx, p).IsSuccess() {
					b.Fatal("held")
				}
			}
		})
	}
}

// TestIndexPastEntryLimit: a pod whose image's index has more entries
// than maxIndexEntries follows onFailure, and its Event and its
// unschedulable message name the image, the count, the limit and the arg.
func TestIndexPastEntryLimit(t *testing.T) {
	s := registrytest.New(t, registrytest.WithTLS())
	child := s.Push(t, "app:single", registrytest.WindowsImage(t, osv2022))
	s.PushRawManifest(t, "app:many", "application/vnd.docker.distribution.manifest.list.v2+json", manyBuildsIndex(child, 9))
	ref := s.Ref("app:many")
	for _, onFailure := range []string{config.OnFailureReject, config.OnFailureTagRules} {
		t.Run(onFailure, func(t *testing.T) {
			args := s.ResolvingArgs(config.ResolutionWindows, onFailure, 10*time.Second)
			args.ImageResolution.MaxIndexEntries = 8
			rp := newResolutionFramework(t, args, testNodes())
			p := withOS(pod(ref), v1.Windows)
			ctx := context.Background()
			deadline := time.Now().Add(10 * time.Second)
			for !rp.pl.PreEnqueue(ctx, p).IsSuccess() {
				if time.Now().After(deadline) {
					t.Fatal("image not resolved within 10s")
				}
				time.Sleep(5 * time.Millisecond)
			}
			parts := []string{ref, "has 9 entries", "limit of 8", "imageResolution.maxIndexEntries"}
			_, status := rp.pl.PreFilter(ctx, newState(), p, nil)
			switch onFailure {
			case config.OnFailureReject:
				if status.Code() != fwk.UnschedulableAndUnresolvable {
					t.Fatalf("PreFilter = %v, want UnschedulableAndUnresolvable", status)
				}
				for _, part := range append(parts, "onFailure: Reject") {
					if !strings.Contains(status.Message(), part) {
						t.Errorf("PreFilter message %q does not name %q", status.Message(), part)
					}
				}
			default:
				// The tag names no build: the pod is placed as a Windows pod
				// of any build.
				if !status.IsSuccess() {
					t.Fatalf("PreFilter = %v, want success by the tag rules", status)
				}
			}
			events := rp.recorded()
			if len(events) != 1 {
				t.Fatalf("events %q, want one", events)
			}
			for _, part := range append(parts, wellknown.EventImagePlatformsUnknown) {
				if !strings.Contains(events[0], part) {
					t.Errorf("event %q does not name %q", events[0], part)
				}
			}
		})
	}
}
