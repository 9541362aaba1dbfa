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
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/imageinspect"
	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
)

// TestResolveWaitsForTheRegistry: Resolve blocks until the registry has
// told the platforms of the pod's images, or failed, or the wait ended;
// Decide then reads what was learnt, and onFailure for the rest.
func TestResolveWaitsForTheRegistry(t *testing.T) {
	s := registrytest.New(t, registrytest.WithTLS())
	s.Push(t, "orders-api:1.4.2", registrytest.WindowsImage(t, osv2019))
	s.Push(t, "slow:1", registrytest.WindowsImage(t, osv2022))
	s.AddFault(registrytest.Fault{Match: func(r *http.Request) bool { return strings.Contains(r.URL.Path, "/slow/") }, Times: -1, Delay: 3 * time.Second})

	tests := []struct {
		name      string
		onFailure string
		pod       *v1.Pod
		wait      time.Duration
		// wantErr is part of the error Resolve returns, "" for none.
		wantErr string
		// wantBuilds are the host builds Decide allows afterwards, nil
		// for any; wantConflict a part of its conflict.
		wantBuilds   []string
		wantConflict string
	}{
		{
			name:       "resolved: the registry's build decides",
			pod:        withOS(pod(s.Ref("orders-api:1.4.2")), v1.Windows),
			wait:       10 * time.Second,
			wantBuilds: []string{"10.0.17763"},
		},
		{
			name:    "no such image: the registry's error, and the tag rules",
			pod:     withOS(pod(s.Ref("missing:1")), v1.Windows),
			wait:    10 * time.Second,
			wantErr: "registry has no such image",
		},
		{
			name:    "registry slower than the wait: the image and the deadline",
			pod:     withOS(pod(s.Ref("slow:1")), v1.Windows),
			wait:    200 * time.Millisecond,
			wantErr: `image "` + s.Ref("slow:1") + `": its registry has not answered in time`,
		},
		{
			name:         "onFailure Reject: Decide names the image",
			onFailure:    config.OnFailureReject,
			pod:          withOS(pod(s.Ref("missing:2")), v1.Windows),
			wait:         10 * time.Second,
			wantErr:      "registry has no such image",
			wantConflict: "(onFailure: Reject)",
		},
		{
			name: "a tag that names the build: nothing asked",
			pod:  pod(img2022),
			wait: time.Nanosecond, wantBuilds: []string{"10.0.20348", "10.0.25398", "10.0.26100"},
		},
		{
			name: "a registry not allowlisted: nothing asked",
			pod:  withOS(pod("elsewhere.example/app:1"), v1.Windows),
			wait: time.Nanosecond,
		},
		{
			name: "a Linux pod out of scope: nothing asked",
			pod:  withOS(pod(s.Ref("orders-api:1.4.2")), v1.Linux),
			wait: time.Nanosecond,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			onFailure := tt.onFailure
			if onFailure == "" {
				onFailure = config.OnFailureTagRules
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			args := s.ResolvingArgs(config.ResolutionWindows, onFailure, 10*time.Second)
			dr := decider(t, args)
			facts, err := Start(ctx, &args.ImageResolution, dr, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			waitCtx, stop := context.WithTimeout(ctx, tt.wait)
			defer stop()
			err = facts.Resolve(waitCtx, tt.pod)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Resolve: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("Resolve: %v, want an error with %q", err, tt.wantErr)
			}
			var unresolved *UnresolvedError
			if err != nil && !errors.As(err, &unresolved) {
				t.Errorf("Resolve: %T, want *UnresolvedError", err)
			}
			d := dr.Decide(tt.pod, facts)
			if tt.wantConflict != "" || d.Conflict() != "" {
				if !strings.Contains(d.Conflict(), tt.wantConflict) || tt.wantConflict == "" {
					t.Fatalf("Decide conflict %q, want one with %q", d.Conflict(), tt.wantConflict)
				}
				return
			}
			builds, every := d.HostBuilds()
			var got []string
			if !every {
				for _, b := range builds {
					got = append(got, b.String())
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.wantBuilds, ",") {
				t.Errorf("host builds after Resolve = %v, want %v", got, tt.wantBuilds)
			}
		})
	}
}

func TestWaitsForRegistry(t *testing.T) {
	// A Windows image (its repository says so) whose tag names no build.
	const imgServerCore = "mcr.microsoft.com/windows/servercore:latest"
	resolving := func(scope string, gate time.Duration, hosts ...string) *config.WindowsAwareArgs {
		return defaultArgs(func(a *config.WindowsAwareArgs) {
			a.ImageResolution.Scope = scope
			a.ImageResolution.GateTimeout = metav1.Duration{Duration: gate}
			for _, h := range hosts {
				a.ImageResolution.Registries = append(a.ImageResolution.Registries, config.RegistryHost{Host: h})
			}
		})
	}
	tests := []struct {
		name      string
		args      *config.WindowsAwareArgs
		pod       *v1.Pod
		wantImage string
	}{
		{name: "resolution off", args: defaultArgs(), pod: pod(imgNano)},
		{name: "Windows image without a build, allowlisted", args: resolving(config.ResolutionWindows, 10*time.Second, "mcr.microsoft.com"),
			pod: pod(imgLinux, imgServerCore), wantImage: imgServerCore},
		{name: "Windows pod by .spec.os.name", args: resolving(config.ResolutionWindows, 10*time.Second, "mcr.microsoft.com"),
			pod: withOS(pod(imgWinNoTag), v1.Windows), wantImage: imgWinNoTag},
		{name: "an image whose tag says nothing: not a Windows pod", args: resolving(config.ResolutionWindows, 10*time.Second, "mcr.microsoft.com"),
			pod: pod(imgWinNoTag)},
		{name: "the tag names the build", args: resolving(config.ResolutionWindows, 10*time.Second, "mcr.microsoft.com"), pod: pod(img2019)},
		{name: "registry not allowlisted", args: resolving(config.ResolutionWindows, 10*time.Second, "ghcr.io"), pod: pod(imgWinNoTag)},
		{name: "gateTimeout 0 never holds", args: resolving(config.ResolutionWindows, 0, "*"), pod: pod(imgWinNoTag)},
		{name: "undeclared pod under scope Windows", args: resolving(config.ResolutionWindows, 10*time.Second, "*"), pod: pod("contoso.azurecr.io/web:1.4.2")},
		{name: "undeclared pod under scope Undeclared", args: resolving(config.ResolutionUndeclared, 10*time.Second, "*.azurecr.io"),
			pod: pod("contoso.azurecr.io/web:1.4.2"), wantImage: "contoso.azurecr.io/web:1.4.2"},
		{name: "Linux pod under scope Undeclared", args: resolving(config.ResolutionUndeclared, 10*time.Second, "*"),
			pod: withOS(pod("contoso.azurecr.io/web:1.4.2"), v1.Linux)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			image, waits := WaitsForRegistry(&tt.args.ImageResolution, decider(t, tt.args), tt.pod)
			if image != tt.wantImage || waits != (tt.wantImage != "") {
				t.Errorf("WaitsForRegistry = %q, %v; want %q", image, waits, tt.wantImage)
			}
		})
	}
}

// TestResolveWithoutRoomWaits: when an image already has as many
// pull-secret scopes under way as the resolver keeps, all stalled behind
// a registry that never answers, Resolve for one more scope neither spins
// nor outlives its context: its passes stay few (a backoff between them),
// and it returns the image unresolved when ctx ends.
func TestResolveWithoutRoomWaits(t *testing.T) {
	s := registrytest.New(t, registrytest.WithTLS())
	s.Push(t, "web:1", registrytest.WindowsImage(t, osv2022))
	s.AddFault(registrytest.Fault{Times: -1, Delay: time.Minute})
	ref := s.Ref("web:1")

	var passes atomic.Int64
	resolvePass = func() { passes.Add(1) }
	t.Cleanup(func() { resolvePass = func() {} })

	tests := []struct {
		name string
		// scopes are the pull-secret sets already under way.
		scopes int
		wait   time.Duration
		// maxPasses bounds the passes of Resolve within wait.
		maxPasses int64
	}{
		{name: "no room: a backoff between passes", scopes: 16, wait: 500 * time.Millisecond, maxPasses: 20},
		{name: "no room, a longer wait: still few passes", scopes: 40, wait: 2 * time.Second, maxPasses: 20},
		{name: "room: one pass, then woken by the run alone", scopes: 3, wait: 300 * time.Millisecond, maxPasses: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			args := s.ResolvingArgs(config.ResolutionWindows, config.OnFailureTagRules, 10*time.Second)
			args.ImageResolution.Credentials.PodPullSecrets = true
			notFound := func(_ context.Context, namespace, name string) (*v1.Secret, error) {
				return nil, apierrors.NewNotFound(v1.Resource("secrets"), name)
			}
			facts, err := Start(ctx, &args.ImageResolution, decider(t, args), notFound, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := range tt.scopes {
				facts.Resolver().Want(ref, "", imageinspect.PullSecrets{Namespace: "default", Names: []string{fmt.Sprintf("s%d", i)}})
			}
			p := withOS(pod(ref), v1.Windows)
			p.Spec.ImagePullSecrets = []v1.LocalObjectReference{{Name: "mine"}}

			passes.Store(0)
			waitCtx, stop := context.WithTimeout(ctx, tt.wait)
			defer stop()
			done := make(chan error, 1)
			go func() { done <- facts.Resolve(waitCtx, p) }()
			select {
			case err = <-done:
			case <-time.After(tt.wait + 10*time.Second):
				t.Fatalf("Resolve still running 10s after its context ended (%d passes)", passes.Load())
			}
			var unresolved *UnresolvedError
			if !errors.As(err, &unresolved) || unresolved.Image != ref || !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Resolve = %v, want the image unresolved at the deadline", err)
			}
			if got := passes.Load(); got > tt.maxPasses {
				t.Errorf("Resolve made %d passes in %v, want at most %d", got, tt.wait, tt.maxPasses)
			}
		})
	}
}
