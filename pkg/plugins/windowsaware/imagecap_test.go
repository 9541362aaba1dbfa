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
	"net/http"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/imagefacts"
	"github.com/windows-aware/windows-aware/pkg/imageinspect"
	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
)

// TestPreEnqueueImagesCapped: a pod is held for the images of its first
// MaxImagesPerPod containers only; the others are never asked about, and
// PreFilter places the pod by their tags under TagRules.
func TestPreEnqueueImagesCapped(t *testing.T) {
	max := imageinspect.DefaultMaxImagesPerPod
	tests := []struct {
		name       string
		containers int
	}{
		{"under the cap", 4},
		{"past the cap", max + 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := registrytest.New(t, registrytest.WithTLS())
			img := registrytest.WindowsImage(t, osv2022)
			images := make([]string, tt.containers)
			for i := range images {
				s.Push(t, fmt.Sprintf("app%d:1", i), img)
				images[i] = s.Ref(fmt.Sprintf("app%d:1", i))
			}
			rp := newResolutionFramework(t, s.ResolvingArgs(config.ResolutionWindows, config.OnFailureTagRules, 10*time.Second), testNodes())
			p := withOS(pod(images...), v1.Windows)
			ctx := context.Background()
			deadline := time.Now().Add(10 * time.Second)
			for !rp.pl.PreEnqueue(ctx, p).IsSuccess() {
				if time.Now().After(deadline) {
					t.Fatal("pod still held 10s after its images were asked for")
				}
				rp.activated.await(t, podKey(p), 5*time.Second)
			}
			if _, status := feasibleNames(t, rp, p, testNodes()); status != nil {
				t.Fatalf("PreFilter = %v", status)
			}
			resolver := rp.pl.resolution.facts.Resolver()
			for i, ref := range images {
				res, known := resolver.Lookup(ref, imagefacts.PullSecretsOf(p))
				if got, want := known && res.State == imageinspect.StateResolved, i < max; got != want {
					t.Errorf("image of container %d resolved: %v, want %v", i, got, want)
				}
			}
			if n, want := s.Count(http.MethodHead, "manifests"), min(tt.containers, max); n != want {
				t.Errorf("registry saw %d HEADs, want %d", n, want)
			}
		})
	}
}
