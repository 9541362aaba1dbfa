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

	v1 "k8s.io/api/core/v1"
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

func TestValidateWindowsAwareArgs(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*config.WindowsAwareArgs)
		// wantFields are the field paths the error must name; none for valid args.
		wantFields []string
	}{
		{"defaults", func(*config.WindowsAwareArgs) {}, nil},
		{"any and exact", func(a *config.WindowsAwareArgs) { a.DefaultOS, a.CompatibilityMode = config.OSAny, "exact" }, nil},
		{"extra releases", func(a *config.WindowsAwareArgs) {
			a.ExtraReleases = []config.ReleaseToken{{Token: "ltsc2028", Build: "10.0.30000"}, {Token: "2404", Build: "10.0.27000"}}
		}, nil},
		{"taints off need no keys", func(a *config.WindowsAwareArgs) { a.OSTaints = config.OSTaints{Tolerate: false} }, nil},
		{"NoExecute", func(a *config.WindowsAwareArgs) {
			a.OSTaints.Effects = append(a.OSTaints.Effects, v1.TaintEffectNoExecute)
		}, nil},

		{"unknown OS", func(a *config.WindowsAwareArgs) { a.DefaultOS = "Linux" }, []string{"args.defaultOS"}},
		{"empty OS", func(a *config.WindowsAwareArgs) { a.DefaultOS = "" }, []string{"args.defaultOS"}},
		{"unknown mode", func(a *config.WindowsAwareArgs) { a.CompatibilityMode = "hyperv" }, []string{"args.compatibilityMode"}},
		{"bad token and build", func(a *config.WindowsAwareArgs) {
			a.ExtraReleases = []config.ReleaseToken{{Token: "", Build: "10.0"}}
		}, []string{"args.extraReleases[0].token", "args.extraReleases[0].build"}},
		{"duplicate token in any case", func(a *config.WindowsAwareArgs) {
			a.ExtraReleases = []config.ReleaseToken{{Token: "ltsc2028", Build: "10.0.30000"}, {Token: "LTSC2028", Build: "10.0.30001"}}
		}, []string{"args.extraReleases[1].token"}},
		{"bad key", func(a *config.WindowsAwareArgs) { a.OSTaints.Keys = []string{"os", "-bad"} }, []string{"args.osTaints.keys[1]"}},
		{"no keys", func(a *config.WindowsAwareArgs) { a.OSTaints.Keys = nil }, []string{"args.osTaints.keys"}},
		{"PreferNoSchedule", func(a *config.WindowsAwareArgs) {
			a.OSTaints.Effects = []v1.TaintEffect{v1.TaintEffectPreferNoSchedule}
		}, []string{"args.osTaints.effects[0]"}},
		{"no effects", func(a *config.WindowsAwareArgs) { a.OSTaints.Effects = nil }, []string{"args.osTaints.effects"}},
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
