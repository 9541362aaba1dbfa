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

package imagefacts

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/imageinspect"
	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
)

// TestPullSecretsOfCapped: only the first DefaultMaxPullSecretsPerPod
// names of a pod count, in the pod's order.
func TestPullSecretsOfCapped(t *testing.T) {
	max := imageinspect.DefaultMaxPullSecretsPerPod
	tests := []struct {
		name  string
		names int
		want  int
	}{
		{"none", 0, 0},
		{"a few", 3, 3},
		{"at the cap", max, max},
		{"far past the cap", 100, max},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := pod(imgNano)
			var want []string
			for i := range tt.names {
				p.Spec.ImagePullSecrets = append(p.Spec.ImagePullSecrets, v1.LocalObjectReference{Name: fmt.Sprintf("secret-%d", i)})
				if i < tt.want {
					want = append(want, fmt.Sprintf("secret-%d", i))
				}
			}
			got := PullSecretsOf(p)
			if got.Namespace != p.Namespace || !slices.Equal(got.Names, want) {
				t.Errorf("PullSecretsOf = %+v, want namespace %s and names %v", got, p.Namespace, want)
			}
		})
	}
}

// TestResolveImagesCapped: Resolve asks about the images of a pod's first
// DefaultMaxImagesPerPod containers only; the others are never asked
// about, and Decide places them by their tags.
func TestResolveImagesCapped(t *testing.T) {
	max := imageinspect.DefaultMaxImagesPerPod
	tests := []struct {
		name       string
		containers int
	}{
		{"under the cap", max / 2},
		{"past the cap", max + 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := registrytest.New(t, registrytest.WithTLS())
			img := registrytest.WindowsImage(t, osv2019)
			var images []string
			for i := range tt.containers {
				s.Push(t, fmt.Sprintf("app%d:1", i), img)
				images = append(images, s.Ref(fmt.Sprintf("app%d:1", i)))
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			args := s.ResolvingArgs(config.ResolutionWindows, config.OnFailureTagRules, 10*time.Second)
			dr := decider(t, args)
			facts, err := Start(ctx, &args.ImageResolution, dr, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			p := withOS(pod(images...), v1.Windows)
			waitCtx, stop := context.WithTimeout(ctx, 15*time.Second)
			defer stop()
			if err := facts.Resolve(waitCtx, p); err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			for i, ref := range images {
				res, known := facts.Resolver().Lookup(ref, PullSecretsOf(p))
				if within := i < max; within != (known && res.State == imageinspect.StateResolved) {
					t.Errorf("image of container %d: resolved %v (%v), want %v", i, known && res.State == imageinspect.StateResolved, res.State, within)
				}
			}
			if n, want := s.Count(http.MethodHead, "manifests"), min(tt.containers, max); n != want {
				t.Errorf("registry saw %d HEADs, want %d", n, want)
			}
			if d := dr.Decide(p, facts); d.Conflict() != "" {
				t.Errorf("Decide: %s", d.Conflict())
			}
		})
	}
}
