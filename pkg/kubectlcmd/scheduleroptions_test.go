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

package kubectlcmd

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// TestSchedulerOptionsFlags: explain and upgrade-plan take the flags of
// SchedulerOptions, the same names, defaults and words; status takes
// none of them.
func TestSchedulerOptionsFlags(t *testing.T) {
	fs := pflag.NewFlagSet("scheduler", pflag.ContinueOnError)
	(&SchedulerOptions{}).AddFlags(fs)
	want := map[string]string{}
	fs.VisitAll(func(f *pflag.Flag) { want[f.Name] = f.DefValue + " | " + f.Usage })
	if got := []string{want["config"], want["scheduler-namespace"], want["resolve-timeout"], want["resolve-deadline"]}; !cmp.Equal(got, []string{
		" | the scheduler's KubeSchedulerConfiguration file, for its WindowsAware args",
		"kube-system | the namespace of the Helm chart's ConfigMap, when neither --config nor --config-map is given",
		"30s | how long --resolve waits for a pod's registries",
		"2m0s | how long --resolve waits for the registries in all; pods not answered by then are reported unresolved",
	}) {
		t.Errorf("flags: %q", got)
	}
	if len(want) != 8 {
		t.Errorf("%d flags, want 8: %q", len(want), want)
	}
	root := NewCommand(genericiooptions.NewTestIOStreamsDiscard())
	for _, name := range []string{"explain", "upgrade-plan", "status"} {
		cmd, _, err := root.Find([]string{name})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for flag := range want {
			if f := cmd.Flags().Lookup(flag); f != nil {
				got[flag] = f.DefValue + " | " + f.Usage
			}
		}
		wantHere := want
		if name == "status" {
			wantHere = map[string]string{}
		}
		if diff := cmp.Diff(wantHere, got); diff != "" {
			t.Errorf("%s's flags (-want +got):\n%s", name, diff)
		}
	}
}

// TestSchedulerOptionsExplainer: the explainer of the args that decide
// (the default args, without a file or a cluster), whose resolve does
// nothing without --resolve, and refuses a profile that reads no
// registry with it; a --config that cannot be read is an error.
func TestSchedulerOptionsExplainer(t *testing.T) {
	tests := []struct {
		name    string
		opts    SchedulerOptions
		wantErr string
	}{
		{name: "without --resolve", opts: SchedulerOptions{}},
		{name: "--resolve, with the default args", opts: SchedulerOptions{Resolve: true},
			wantErr: `--resolve: profile "windows-aware" reads no image from registries (its imageResolution.scope is None)`},
		{name: "a --config file that is not there", opts: SchedulerOptions{Config: "/nonexistent/scheduler-config.yaml"},
			wantErr: "open /nonexistent/scheduler-config.yaml: no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			e, resolve, err := tt.opts.explainer(t.Context(), nil, &stderr)
			if err == nil {
				var stop func()
				if stop, err = resolve(t.Context()); err == nil {
					stop()
				}
			}
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if gotErr != tt.wantErr {
				t.Fatalf("error %q, want %q", gotErr, tt.wantErr)
			}
			if err != nil {
				return
			}
			if e.Profile != "windows-aware" || e.Facts != nil || e.Resolve != nil || stderr.Len() != 0 {
				t.Errorf("explainer of profile %q, facts %v, resolve set %v, stderr %q: want the default profile's, not asking registries, silent",
					e.Profile, e.Facts, e.Resolve != nil, stderr.String())
			}
		})
	}
}
