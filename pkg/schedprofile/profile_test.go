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

package schedprofile

import (
	"strings"
	"testing"
)

// TestParse: which profile a configuration yields, as the scheduler
// decodes it, and why none when none.
func TestParse(t *testing.T) {
	const head = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
	const stock = "  - schedulerName: default-scheduler\n"
	aware := func(name string) string {
		return "  - schedulerName: " + name + "\n    plugins:\n      multiPoint:\n        enabled:\n          - name: WindowsAware\n"
	}
	tests := []struct {
		name, config, profile string
		want                  string // the profile's name, or "error: " and a part of the error
		wantDefaultOS         string
	}{
		{name: "the one that enables WindowsAware", config: head + stock + aware("win"), want: "win"},
		{name: "several: the default's", config: head + aware("windows-aware") + aware("other"), want: "windows-aware"},
		{name: "several, none the default: name one", config: head + aware("a") + aware("b"), want: "error: several profiles enable WindowsAware (a, b): name one"},
		{name: "named", config: head + aware("a") + aware("b"), profile: "b", want: "b"},
		{name: "named, but it does not enable it", config: head + stock + aware("a"), profile: "default-scheduler", want: "error: no profile \"default-scheduler\" enables WindowsAware (profiles that do: a)"},
		{name: "none enables it", config: head + stock, want: "error: no profile enables WindowsAware"},
		{name: "enabled by multiPoint, disabled at PreFilter: it does not decide", config: head + aware("a") + "      preFilter:\n        disabled:\n          - name: WindowsAware\n" + aware("b"), want: "b"},
		{name: "args read and defaulted", config: head + aware("a") + "    pluginConfig:\n      - name: WindowsAware\n        args:\n          defaultOS: any\n", want: "a", wantDefaultOS: "any"},
		{name: "not a scheduler configuration", config: "apiVersion: v1\nkind: ConfigMap\n", want: "error: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.config), "config.yaml", tt.profile)
			if want, ok := strings.CutPrefix(tt.want, "error: "); ok {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("Parse: %v, %v; want an error with %q", got.Name, err, want)
				}
				return
			}
			if err != nil || got.Name != tt.want || got.Args == nil {
				t.Fatalf("Parse = %q (args %v), %v; want %q", got.Name, got.Args, err, tt.want)
			}
			if tt.wantDefaultOS != "" && got.Args.DefaultOS != tt.wantDefaultOS {
				t.Errorf("defaultOS %q, want %q", got.Args.DefaultOS, tt.wantDefaultOS)
			}
		})
	}
}

// TestLoadWithoutFile: no file is the default profile with the default
// args, or the profile named.
func TestLoadWithoutFile(t *testing.T) {
	for _, name := range []string{"", "mine"} {
		p, err := Load("", name)
		want := name
		if want == "" {
			want = Default
		}
		if err != nil || p.Name != want || p.Args == nil || p.Args.DefaultOS != "linux" {
			t.Errorf("Load(\"\", %q) = %q %+v, %v; want %q with the default args", name, p.Name, p.Args, err, want)
		}
	}
}
