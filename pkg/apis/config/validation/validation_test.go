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

package validation

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
)

func validArgs() *config.WindowsAwareArgs {
	return &config.WindowsAwareArgs{
		DefaultOS:         config.OSLinux,
		CompatibilityMode: "containerd",
		OSTaints: config.OSTaints{
			Tolerate: true,
			Keys:     []string{"os", "node.kubernetes.io/os"},
			Effects:  []v1.TaintEffect{v1.TaintEffectNoSchedule},
		},
	}
}

// validResolution is resolution on, with the defaults of the v1 API.
func validResolution() config.ImageResolution {
	return config.ImageResolution{
		Scope:           config.ResolutionWindows,
		Registries:      []config.RegistryHost{{Host: "mcr.microsoft.com"}, {Host: "*.azurecr.io"}},
		GateTimeout:     metav1.Duration{Duration: 10 * time.Second},
		OnFailure:       config.OnFailureTagRules,
		Cache:           config.ImageCache{MaxEntries: 20000, TagTTL: metav1.Duration{Duration: 10 * time.Minute}, NegativeTTL: metav1.Duration{Duration: time.Minute}},
		Concurrency:     config.ImageConcurrency{Workers: 8, PerRegistry: 4},
		RequestTimeout:  metav1.Duration{Duration: 10 * time.Second},
		MaxIndexEntries: 256,
	}
}

func TestValidateWindowsAwareArgs(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*config.WindowsAwareArgs)
		// wantFields are the field paths the error must name; none for valid args.
		wantFields []string
	}{
		{name: "defaults", mutate: func(*config.WindowsAwareArgs) {}, wantFields: nil},
		{name: "any and exact", mutate: func(a *config.WindowsAwareArgs) { a.DefaultOS, a.CompatibilityMode = config.OSAny, "exact" }, wantFields: nil},
		{name: "extra releases", mutate: func(a *config.WindowsAwareArgs) {
			a.ExtraReleases = []config.ReleaseToken{{Token: "ltsc2028", Build: "10.0.30000"}, {Token: "2404", Build: "10.0.27000"}}
		}, wantFields: nil},
		{name: "taints off need no keys", mutate: func(a *config.WindowsAwareArgs) { a.OSTaints = config.OSTaints{Tolerate: false} }, wantFields: nil},

		{name: "unknown OS", mutate: func(a *config.WindowsAwareArgs) { a.DefaultOS = "Linux" }, wantFields: []string{"args.defaultOS"}},
		{name: "empty OS", mutate: func(a *config.WindowsAwareArgs) { a.DefaultOS = "" }, wantFields: []string{"args.defaultOS"}},
		{name: "unknown mode", mutate: func(a *config.WindowsAwareArgs) { a.CompatibilityMode = "hyperv" }, wantFields: []string{"args.compatibilityMode"}},
		{name: "bad token and build", mutate: func(a *config.WindowsAwareArgs) {
			a.ExtraReleases = []config.ReleaseToken{{Token: "", Build: "10.0"}}
		}, wantFields: []string{"args.extraReleases[0].token", "args.extraReleases[0].build"}},
		{name: "duplicate token in any case", mutate: func(a *config.WindowsAwareArgs) {
			a.ExtraReleases = []config.ReleaseToken{{Token: "ltsc2028", Build: "10.0.30000"}, {Token: "LTSC2028", Build: "10.0.30001"}}
		}, wantFields: []string{"args.extraReleases[1].token"}},
		{name: "bad key", mutate: func(a *config.WindowsAwareArgs) { a.OSTaints.Keys = []string{"os", "-bad"} }, wantFields: []string{"args.osTaints.keys[1]"}},
		{name: "no keys", mutate: func(a *config.WindowsAwareArgs) { a.OSTaints.Keys = nil }, wantFields: []string{"args.osTaints.keys"}},
		{name: "PreferNoSchedule", mutate: func(a *config.WindowsAwareArgs) {
			a.OSTaints.Effects = []v1.TaintEffect{v1.TaintEffectPreferNoSchedule}
		}, wantFields: []string{"args.osTaints.effects[0]"}},
		{name: "NoExecute: the kubelet would evict what the scheduler tolerated", mutate: func(a *config.WindowsAwareArgs) {
			a.OSTaints.Effects = append(a.OSTaints.Effects, v1.TaintEffectNoExecute)
		}, wantFields: []string{"args.osTaints.effects[1]"}},
		{name: "no effects", mutate: func(a *config.WindowsAwareArgs) { a.OSTaints.Effects = nil }, wantFields: []string{"args.osTaints.effects"}},

		{name: "resolution off reads nothing else", mutate: func(a *config.WindowsAwareArgs) {
			a.ImageResolution = config.ImageResolution{Scope: config.ResolutionNone, Registries: []config.RegistryHost{{Host: "bad host"}}}
		}, wantFields: nil},
		{name: "resolution on", mutate: func(a *config.WindowsAwareArgs) { a.ImageResolution = validResolution() }, wantFields: nil},
		{name: "resolution with mirrors and Reject", mutate: func(a *config.WindowsAwareArgs) {
			a.ImageResolution = validResolution()
			a.ImageResolution.Scope, a.ImageResolution.OnFailure = config.ResolutionUndeclared, config.OnFailureReject
			a.ImageResolution.Registries = append(a.ImageResolution.Registries,
				config.RegistryHost{Host: "docker.io", Endpoints: []string{"http://10.0.0.5:5000", "https://mirror.local"}, Insecure: true, AllowPrivate: true, CAFile: "/etc/ca.pem"},
				config.RegistryHost{Host: "*"})
		}, wantFields: nil},
		{name: "resolution without registries", mutate: func(a *config.WindowsAwareArgs) {
			a.ImageResolution = validResolution()
			a.ImageResolution.Registries = nil
		}, wantFields: []string{"args.imageResolution.registries"}},
		{name: "resolution bad values", mutate: func(a *config.WindowsAwareArgs) {
			r := validResolution()
			r.Scope, r.OnFailure = "Always", "Guess"
			r.Registries = []config.RegistryHost{
				{Host: "mcr.microsoft.com/windows"},
				{Host: "*.azurecr.io", Endpoints: []string{"ftp://mirror", "http://mirror:5000"}, CAFile: "ca.pem"},
				{Host: "*.AzureCR.io"},
			}
			r.GateTimeout.Duration = -1
			r.Cache.TagTTL.Duration, r.Cache.NegativeTTL.Duration, r.RequestTimeout.Duration = 0, -1, 0
			r.Cache.MaxEntries, r.Concurrency.Workers, r.Concurrency.PerRegistry = 0, -1, 0
			r.Credentials.DockerConfigFile = "config.json"
			a.ImageResolution = r
		}, wantFields: []string{
			"args.imageResolution.scope", "args.imageResolution.onFailure",
			"args.imageResolution.registries[0].host", "args.imageResolution.registries[1].endpoints[0]",
			"args.imageResolution.registries[1].endpoints[1]", "args.imageResolution.registries[1].caFile",
			"args.imageResolution.registries[2].host", "args.imageResolution.gateTimeout",
			"args.imageResolution.cache.tagTTL", "args.imageResolution.cache.negativeTTL", "args.imageResolution.requestTimeout",
			"args.imageResolution.cache.maxEntries", "args.imageResolution.concurrency.workers",
			"args.imageResolution.concurrency.perRegistry", "args.imageResolution.credentials.dockerConfigFile",
		}},
		{name: "maxIndexEntries 0", mutate: func(a *config.WindowsAwareArgs) {
			a.ImageResolution = validResolution()
			a.ImageResolution.MaxIndexEntries = 0
		}, wantFields: []string{"args.imageResolution.maxIndexEntries"}},
		{name: "maxIndexEntries above the limit", mutate: func(a *config.WindowsAwareArgs) {
			a.ImageResolution = validResolution()
			a.ImageResolution.MaxIndexEntries = 10001
		}, wantFields: []string{"args.imageResolution.maxIndexEntries"}},
		{name: "maxIndexEntries at the limit", mutate: func(a *config.WindowsAwareArgs) {
			a.ImageResolution = validResolution()
			a.ImageResolution.MaxIndexEntries = 10000
		}},
		{name: "Reject needs a gate", mutate: func(a *config.WindowsAwareArgs) {
			a.ImageResolution = validResolution()
			a.ImageResolution.OnFailure, a.ImageResolution.GateTimeout.Duration = config.OnFailureReject, 0
		}, wantFields: []string{"args.imageResolution.gateTimeout"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := validArgs()
			tt.mutate(args)
			err := ValidateWindowsAwareArgs(field.NewPath("args"), args)
			if len(tt.wantFields) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want one naming %v", tt.wantFields)
			}
			for _, f := range tt.wantFields {
				if !strings.Contains(err.Error(), f+":") {
					t.Errorf("error %q does not name %s", err, f)
				}
			}
		})
	}
}

// TestNoExecuteSaysWhy: the refusal names the field and the reason, so an
// administrator knows to tolerate NoExecute in pod specs instead.
func TestNoExecuteSaysWhy(t *testing.T) {
	args := validArgs()
	args.OSTaints.Effects = []v1.TaintEffect{v1.TaintEffectNoExecute}
	err := ValidateWindowsAwareArgs(field.NewPath("args"), args)
	if err == nil {
		t.Fatal("NoExecute accepted")
	}
	for _, want := range []string{"args.osTaints.effects[0]", "kubelet evicts", "loop"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}
