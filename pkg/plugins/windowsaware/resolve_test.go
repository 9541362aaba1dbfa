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
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
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
			pod:  pod(img2022).Obj(),
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
			pl, err := NewResolving(ctx, resolutionArgs(s, config.ResolutionWindows, onFailure, 10*time.Second), nil)
			if err != nil {
				t.Fatal(err)
			}
			waitCtx, stop := context.WithTimeout(ctx, tt.wait)
			defer stop()
			err = pl.Resolve(waitCtx, tt.pod)
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
			d := pl.Decide(tt.pod)
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
