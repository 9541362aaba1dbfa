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
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/imageinspect"
	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
)

// TestKnownPlatformsOf: Facts tell the decision what their cache already
// holds of the images of a pod out of scope, and ask nothing for it, so
// that every program deciding with them (queueing hints, the gate
// remover, explain) agrees with the scheduler's PreFilter.
func TestKnownPlatformsOf(t *testing.T) {
	s := registrytest.New(t, registrytest.WithTLS())
	s.Push(t, "agent:3.1", registrytest.Index(t, registrytest.OCI,
		registrytest.Entry{OS: "windows", Arch: "amd64", OSVersion: osv2019}, registrytest.Entry{OS: "windows", Arch: "amd64", OSVersion: osv2022}))
	s.Push(t, "unseen:1", registrytest.WindowsImage(t, osv2022))
	img, unseen := s.Ref("agent:3.1"), s.Ref("unseen:1")

	facts, dr, waitCtx := resolvedFor(t, s, img)
	asked := s.Total()

	linux := withOS(pod(img), v1.Linux)
	if facts.Resolves(dr.DeclaredOS(linux)) {
		t.Fatal("scope Windows resolves a Linux pod")
	}
	l, known := facts.KnownPlatformsOf(linux, img)
	if !known || len(l.Platforms) != 2 || !l.Summary.Windows || l.Summary.Linux {
		t.Fatalf("KnownPlatformsOf(%s) = %+v, %v; want its two Windows platforms", img, l, known)
	}
	if _, known := facts.KnownPlatformsOf(withOS(pod(unseen), v1.Linux), unseen); known {
		t.Errorf("KnownPlatformsOf(%s) = known, nothing resolved it", unseen)
	}

	// A Linux pod with the known image contradicts it; with the unseen one
	// it is placed by its spec, as before.
	d := dr.Decide(linux, facts)
	for _, want := range []string{img, "has no linux platform", "10.0.17763", "10.0.20348"} {
		if !strings.Contains(d.Conflict(), want) {
			t.Errorf("Decide: conflict %q does not name %q", d.Conflict(), want)
		}
	}
	if d := dr.Decide(withOS(pod(unseen), v1.Linux), facts); d.Conflict() != "" || d.OS() != "linux" {
		t.Errorf("Decide of the unseen image: OS %q, conflict %q; want linux, none", d.OS(), d.Conflict())
	}
	// Resolve does nothing for a pod out of scope: nothing is asked.
	if err := facts.Resolve(waitCtx, withOS(pod(unseen), v1.Linux)); err != nil {
		t.Errorf("Resolve of a pod out of scope: %v", err)
	}
	if n := s.Total() - asked; n != 0 {
		t.Errorf("the registry was asked %d time(s) for pods out of scope", n)
	}
	if _, known := facts.Resolver().Lookup(unseen, PullSecretsOf(linux)); known {
		t.Errorf("%s was queued for resolution", unseen)
	}
}

// TestKnownPlatformsOfCapped: an image past the pod's MaxImagesPerPod is
// not read, as PlatformsOf reads none.
func TestKnownPlatformsOfCapped(t *testing.T) {
	s := registrytest.New(t, registrytest.WithTLS())
	s.Push(t, "agent:3.1", registrytest.WindowsImage(t, osv2019))
	img := s.Ref("agent:3.1")
	facts, dr, _ := resolvedFor(t, s, img)
	var images []string
	for i := range imageinspect.DefaultMaxImagesPerPod {
		images = append(images, fmt.Sprintf("nginx:1.%d", i))
	}
	past := withOS(pod(append(images, img)...), v1.Linux)
	if _, known := facts.KnownPlatformsOf(past, img); known {
		t.Errorf("KnownPlatformsOf read an image past MaxImagesPerPod")
	}
	if d := dr.Decide(past, facts); d.Conflict() != "" {
		t.Errorf("Decide: %s, want none", d.Conflict())
	}
}

// resolvedFor starts the facts of scope Windows over s's registry and has
// img resolved, for a Windows pod; the context bounds later waits.
func resolvedFor(t *testing.T, s *registrytest.Server, img string) (*Facts, *podneeds.Decider, context.Context) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	args := s.ResolvingArgs(config.ResolutionWindows, config.OnFailureTagRules, 10*time.Second)
	dr := decider(t, args)
	facts, err := Start(ctx, &args.ImageResolution, dr, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	waitCtx, stop := context.WithTimeout(ctx, 15*time.Second)
	t.Cleanup(stop)
	if err := facts.Resolve(waitCtx, withOS(pod(img), v1.Windows)); err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	return facts, dr, waitCtx
}
