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
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/apis/config/scheme"
	configv1 "github.com/windows-aware/windows-aware/pkg/apis/config/v1"
)

func TestConfigFromArgs(t *testing.T) {
	getSecret := func(context.Context, string, string) (*v1.Secret, error) { return nil, nil }
	// The versioned defaults, as a configuration that sets only what it
	// must gets them.
	versioned := &configv1.WindowsAwareArgs{ImageResolution: &configv1.ImageResolution{
		Scope:      new("Windows"),
		Registries: []configv1.RegistryHost{{Host: "mcr.microsoft.com"}, {Host: "docker.io", Endpoints: []string{"https://mirror.local"}, AllowPrivate: true, CAFile: "/etc/ca.pem"}},
	}}
	scheme.Scheme.Default(versioned)
	args := &config.WindowsAwareArgs{}
	if err := scheme.Scheme.Convert(versioned, args, nil); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		edit        func(*config.ImageResolution)
		want        Config
		wantEnabled bool
		wantGetter  bool
	}{
		{
			name:        "defaults",
			edit:        func(*config.ImageResolution) {},
			wantEnabled: true,
			want: Config{
				Registries:      []Registry{{Host: "mcr.microsoft.com"}, {Host: "docker.io", Endpoints: []string{"https://mirror.local"}, AllowPrivate: true, CAFile: "/etc/ca.pem"}},
				MaxEntries:      20000,
				TagTTL:          10 * time.Minute,
				NegativeTTL:     time.Minute,
				Workers:         8,
				PerRegistry:     4,
				RequestTimeout:  10 * time.Second,
				MaxIndexEntries: 256,
			},
		},
		{
			name: "pull secrets and a docker config",
			edit: func(r *config.ImageResolution) {
				r.Credentials = config.ImageCredentials{PodPullSecrets: true, DockerConfigFile: "/etc/registry/config.json"}
				r.Cache.TagTTL = metav1.Duration{Duration: time.Hour}
			},
			wantEnabled: true,
			wantGetter:  true,
			want: Config{
				Registries:       []Registry{{Host: "mcr.microsoft.com"}, {Host: "docker.io", Endpoints: []string{"https://mirror.local"}, AllowPrivate: true, CAFile: "/etc/ca.pem"}},
				DockerConfigFile: "/etc/registry/config.json",
				PodPullSecrets:   true,
				MaxEntries:       20000,
				TagTTL:           time.Hour,
				NegativeTTL:      time.Minute,
				Workers:          8,
				PerRegistry:      4,
				RequestTimeout:   10 * time.Second,
				MaxIndexEntries:  256,
			},
		},
		{
			name: "off",
			edit: func(r *config.ImageResolution) { r.Scope = config.ResolutionNone },
			want: Config{
				Registries: []Registry{{Host: "mcr.microsoft.com"}, {Host: "docker.io", Endpoints: []string{"https://mirror.local"}, AllowPrivate: true, CAFile: "/etc/ca.pem"}},
				MaxEntries: 20000, TagTTL: 10 * time.Minute, NegativeTTL: time.Minute, Workers: 8, PerRegistry: 4, RequestTimeout: 10 * time.Second, MaxIndexEntries: 256,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := args.ImageResolution
			r.Registries = append([]config.RegistryHost(nil), r.Registries...)
			tt.edit(&r)
			got := ConfigFromArgs(&r, getSecret)
			if (got.GetSecret != nil) != tt.wantGetter {
				t.Errorf("GetSecret set = %v, want %v", got.GetSecret != nil, tt.wantGetter)
			}
			got.GetSecret = nil
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Config (-want +got):\n%s", diff)
			}
			if Enabled(&r) != tt.wantEnabled {
				t.Errorf("Enabled = %v, want %v", Enabled(&r), tt.wantEnabled)
			}
		})
	}
}
