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

package upstream

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/validation"

	waconfig "github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/plugins/ostainttoleration"
	"github.com/windows-aware/windows-aware/pkg/plugins/windowsaware"
	"github.com/windows-aware/windows-aware/pkg/plugins/windowsawarepreemption"
)

// shippedConfig is the configuration whose windows-aware profile every
// workload's profile takes the plugins from.
const shippedConfig = "../../manifests/scheduler-config.yaml"

// TestWithPlugins decodes, defaults and validates each configuration the
// way the harness does, and checks that the profiles pods use run the
// plugins where the shipped profile does (first at PreFilter and Filter,
// TaintToleration's Filter replaced) with the shipped args, and that the
// workload's own settings are kept.
func TestWithPlugins(t *testing.T) {
	ours, err := shippedProfile(shippedConfig)
	if err != nil {
		t.Fatal(err)
	}
	want := shippedArgs(t)
	for _, tt := range []struct {
		name     string
		config   string // "" for none: upstream's default configuration
		profiles []string
		// with names the profiles that get the plugins; the others must not.
		with, without []string
		// keep checks what the workload's configuration set itself.
		keep    func(t *testing.T, cfg *config.KubeSchedulerConfiguration)
		wantErr string
	}{
		{name: "no configuration", with: []string{defaultProfile}},
		{
			name: "args of its own kept",
			config: `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: PodTopologySpread
    args:
      defaultingType: List
      defaultConstraints: []
`,
			with: []string{defaultProfile},
			keep: func(t *testing.T, cfg *config.KubeSchedulerConfiguration) {
				for _, pc := range cfg.Profiles[0].PluginConfig {
					if a, ok := pc.Args.(*config.PodTopologySpreadArgs); ok {
						if a.DefaultingType != config.ListDefaulting || len(a.DefaultConstraints) != 0 {
							t.Errorf("PodTopologySpread args: %+v", a)
						}
						return
					}
				}
				t.Error("PodTopologySpread args lost")
			},
		},
		{
			name: "plugins of its own kept",
			config: `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- plugins:
    filter:
      disabled:
      - name: NodePorts
    score:
      enabled:
      - name: NodeResourcesBalancedAllocation
        weight: 3
`,
			with: []string{defaultProfile},
			keep: func(t *testing.T, cfg *config.KubeSchedulerConfiguration) {
				p := cfg.Profiles[0].Plugins
				if slices.ContainsFunc(p.Filter.Enabled, named("NodePorts")) {
					t.Error("NodePorts back at Filter")
				}
				if i := slices.IndexFunc(p.Score.Enabled, named("NodeResourcesBalancedAllocation")); i < 0 || p.Score.Enabled[i].Weight != 3 {
					t.Errorf("NodeResourcesBalancedAllocation's score weight lost: %+v", p.Score.Enabled)
				}
			},
		},
		{
			name: "only the profiles pods use",
			config: `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
- schedulerName: gang-scheduler
- schedulerName: unused
`,
			profiles: []string{"gang-scheduler"},
			with:     []string{defaultProfile, "gang-scheduler"},
			without:  []string{"unused"},
		},
		{
			name: "no default profile",
			config: `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: other
`,
			wantErr: "no profile default-scheduler",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var in []byte
			if tt.config != "" {
				in = []byte(tt.config)
			}
			out, err := withPlugins(in, ours, tt.profiles)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			cfg := decodeAsHarness(t, out)
			for _, p := range cfg.Profiles {
				switch {
				case slices.Contains(tt.with, p.SchedulerName):
					checkProfile(t, p, want)
				case slices.Contains(tt.without, p.SchedulerName):
					if slices.ContainsFunc(p.Plugins.Filter.Enabled, named(windowsaware.Name)) {
						t.Errorf("profile %s runs WindowsAware", p.SchedulerName)
					}
				}
			}
			if tt.keep != nil {
				tt.keep(t, cfg)
			}
		})
	}
}

// decodeAsHarness is what scheduler_perf does with a test case's
// schedulerConfigPath: decode with defaulting, then validate.
func decodeAsHarness(t *testing.T, data []byte) *config.KubeSchedulerConfiguration {
	t.Helper()
	obj, _, err := scheme.Codecs.UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		t.Fatalf("decoding:\n%s\n%v", data, err)
	}
	cfg := obj.(*config.KubeSchedulerConfiguration)
	if err := validation.ValidateKubeSchedulerConfiguration(cfg); err != nil {
		t.Fatalf("validating:\n%s\n%v", data, err)
	}
	return cfg
}

// shippedArgs are the WindowsAware args of the shipped windows-aware
// profile, decoded as the scheduler decodes them.
func shippedArgs(t *testing.T) *waconfig.WindowsAwareArgs {
	t.Helper()
	cfg := decodeAsHarness(t, mustRead(t, shippedConfig))
	for _, p := range cfg.Profiles {
		if p.SchedulerName != shippedProfileName {
			continue
		}
		for _, pc := range p.PluginConfig {
			if a, ok := pc.Args.(*waconfig.WindowsAwareArgs); ok {
				return a
			}
		}
	}
	t.Fatalf("%s: no WindowsAware args in profile %s", shippedConfig, shippedProfileName)
	return nil
}

// checkProfile holds a defaulted profile to the shipped windows-aware one.
func checkProfile(t *testing.T, p config.KubeSchedulerProfile, want *waconfig.WindowsAwareArgs) {
	t.Helper()
	pl := p.Plugins
	if got := names(pl.PreFilter.Enabled); len(got) == 0 || got[0] != windowsaware.Name {
		t.Errorf("profile %s: PreFilter %v, want WindowsAware first", p.SchedulerName, got)
	}
	if got := names(pl.Filter.Enabled); len(got) < 2 || got[0] != windowsaware.Name || got[1] != ostainttoleration.Name {
		t.Errorf("profile %s: Filter %v, want WindowsAware and OSTaintToleration first", p.SchedulerName, got)
	}
	if slices.ContainsFunc(pl.Filter.Enabled, named("TaintToleration")) {
		t.Errorf("profile %s: TaintToleration still at Filter", p.SchedulerName)
	}
	// Preemption is WindowsAwarePreemption, DefaultPreemption disabled.
	if !slices.ContainsFunc(pl.MultiPoint.Enabled, named(windowsawarepreemption.Name)) ||
		slices.ContainsFunc(pl.MultiPoint.Enabled, named("DefaultPreemption")) {
		t.Errorf("profile %s: MultiPoint %v, want %s and no DefaultPreemption", p.SchedulerName, names(pl.MultiPoint.Enabled), windowsawarepreemption.Name)
	}
	// Score weights stay at MultiPoint, which the framework expands.
	if i := slices.IndexFunc(pl.MultiPoint.Enabled, named(windowsaware.Name)); i < 0 || pl.MultiPoint.Enabled[i].Weight != 5 {
		t.Errorf("profile %s: MultiPoint %+v, want WindowsAware weight 5", p.SchedulerName, pl.MultiPoint.Enabled)
	}
	for _, pc := range p.PluginConfig {
		if a, ok := pc.Args.(*waconfig.WindowsAwareArgs); ok {
			if diff := cmp.Diff(want, a); diff != "" {
				t.Errorf("profile %s: WindowsAware args (-shipped +got):\n%s", p.SchedulerName, diff)
			}
			return
		}
	}
	t.Errorf("profile %s: no WindowsAware args", p.SchedulerName)
}

func named(name string) func(config.Plugin) bool {
	return func(p config.Plugin) bool { return p.Name == name }
}

func names(ps []config.Plugin) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
