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

package chart

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2/ktesting"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"

	windowsawareapp "github.com/windows-aware/windows-aware/cmd/scheduler/app"
	"github.com/windows-aware/windows-aware/pkg/apis/config"
)

const (
	replaceConfig = "../../manifests/scheduler-config.yaml"
	besideConfig  = "../../manifests/beside/scheduler-config.yaml"
)

// shipped copies a config from manifests/ with only its kubeconfig path
// replaced by one that exists here, and extra applied as plain text edits.
func shipped(t *testing.T, path string, edits ...[2]string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`), 0o600); err != nil {
		t.Fatal(err)
	}
	text := string(data)
	re := regexp.MustCompile(`(?m)^  kubeconfig: .*$`)
	if re.MatchString(text) {
		text = re.ReplaceAllString(text, "  kubeconfig: "+kubeconfig)
	} else {
		text += "clientConnection:\n  kubeconfig: " + kubeconfig + "\n"
	}
	for _, e := range edits {
		if !strings.Contains(text, e[0]) {
			t.Fatalf("%s has no %q to edit", path, e[0])
		}
		text = strings.Replace(text, e[0], e[1], 1)
	}
	out := filepath.Join(dir, filepath.Base(path))
	if err := os.WriteFile(out, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return out
}

// setup runs the scheduler's own flag parsing, config loading, defaulting,
// validation and plugin construction, as the binary does at start.
func setup(t *testing.T, configFile string) (map[string]*schedconfig.Plugins, *schedconfig.KubeSchedulerConfiguration, error) {
	t.Helper()
	opts := options.NewOptions()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	for _, f := range opts.Flags.FlagSets {
		fs.AddFlagSet(f)
	}
	if err := fs.Parse([]string{"--config", configFile}); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	opts.SecureServing.Listener = l

	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	cc, sched, err := app.Setup(ctx, opts, windowsawareapp.Plugins()...)
	if err != nil {
		return nil, nil, err
	}
	got := map[string]*schedconfig.Plugins{}
	for name, p := range sched.Profiles {
		got[name] = p.ListPlugins()
	}
	return got, &cc.ComponentConfig, nil
}

func names(set *schedconfig.PluginSet) []string {
	var out []string
	for _, p := range set.Enabled {
		out = append(out, p.Name)
	}
	return out
}

func weight(set *schedconfig.PluginSet, name string) int32 {
	for _, p := range set.Enabled {
		if p.Name == name {
			return p.Weight
		}
	}
	return -1
}

func TestShippedConfigs(t *testing.T) {
	// The stock profile as the scheduler builds it from an empty config.
	stock, _, err := setup(t, shipped(t, writeTemp(t, "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n")))
	if err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		file         string
		wantProfiles []string
		wantLease    string
	}{
		{file: replaceConfig, wantProfiles: []string{"default-scheduler", "windows-aware"}, wantLease: "kube-scheduler"},
		{file: besideConfig, wantProfiles: []string{"windows-aware"}, wantLease: "windows-aware-scheduler"},
	} {
		t.Run(filepath.Base(filepath.Dir(tc.file)), func(t *testing.T) {
			profiles, cfg, err := setup(t, shipped(t, tc.file))
			if err != nil {
				t.Fatalf("the scheduler refuses %s: %v", tc.file, err)
			}
			var gotProfiles []string
			for name := range profiles {
				gotProfiles = append(gotProfiles, name)
			}
			if diff := cmp.Diff(tc.wantProfiles, gotProfiles, cmpSorted); diff != "" {
				t.Errorf("profiles (-want +got):\n%s", diff)
			}
			if def, ok := profiles["default-scheduler"]; ok {
				if diff := cmp.Diff(stock["default-scheduler"], def); diff != "" {
					t.Errorf("default-scheduler differs from the stock profile (-stock +shipped):\n%s", diff)
				}
			}

			wa := profiles["windows-aware"]
			filters := names(&wa.Filter)
			for _, want := range []string{"WindowsAware", "OSTaintToleration", "NodeAffinity"} {
				if !contains(filters, want) {
					t.Errorf("windows-aware filters %v lack %s", filters, want)
				}
			}
			if len(filters) < 2 || filters[0] != "WindowsAware" || filters[1] != "OSTaintToleration" {
				t.Errorf("windows-aware filters %v: WindowsAware and OSTaintToleration do not run first", filters)
			}
			if prefilters := names(&wa.PreFilter); prefilters[0] != "WindowsAware" {
				t.Errorf("windows-aware prefilters %v: WindowsAware does not run first", prefilters)
			}
			for _, p := range []string{"WindowsAware", "OSTaintToleration"} {
				if n := slices.Index(filters, p) + 1; n == 0 || slices.Contains(filters[n:], p) {
					t.Errorf("windows-aware filters %v: %s is not there exactly once", filters, p)
				}
			}
			if contains(filters, "TaintToleration") {
				t.Errorf("windows-aware still filters with TaintToleration: %v", filters)
			}
			if !contains(names(&wa.PreFilter), "WindowsAware") {
				t.Errorf("windows-aware prefilters %v lack WindowsAware", names(&wa.PreFilter))
			}
			// WindowsAware's PostFilter only reports; preemption runs first,
			// so that a pod it places is never reported. Preemption is
			// WindowsAwarePreemption, in DefaultPreemption's place at every
			// extension point.
			if postFilters := names(&wa.PostFilter); len(postFilters) < 2 || postFilters[len(postFilters)-1] != "WindowsAware" ||
				!contains(postFilters, "WindowsAwarePreemption") || contains(postFilters, "DefaultPreemption") {
				t.Errorf("windows-aware postFilters = %v, want WindowsAwarePreemption (no DefaultPreemption) and then WindowsAware last", postFilters)
			}
			if preEnqueue := names(&wa.PreEnqueue); !contains(preEnqueue, "WindowsAwarePreemption") || contains(preEnqueue, "DefaultPreemption") {
				t.Errorf("windows-aware preEnqueue = %v, want WindowsAwarePreemption and no DefaultPreemption", preEnqueue)
			}
			if w := weight(&wa.Score, "WindowsAware"); w != 5 {
				t.Errorf("WindowsAware score weight = %d, want 5", w)
			}
			if w := weight(&wa.Score, "TaintToleration"); w < 1 {
				t.Errorf("TaintToleration no longer scores PreferNoSchedule taints: %v", names(&wa.Score))
			}

			if !cfg.LeaderElection.LeaderElect || cfg.LeaderElection.ResourceName != tc.wantLease || cfg.LeaderElection.ResourceNamespace != "kube-system" {
				t.Errorf("leader election = %+v, want lease kube-system/%s", cfg.LeaderElection, tc.wantLease)
			}
			if cfg.EnableProfiling || cfg.EnableContentionProfiling {
				t.Error("profiling is on")
			}
			args := waArgs(t, cfg)
			want := &config.WindowsAwareArgs{
				DefaultOS: "linux", CompatibilityMode: "containerd", ExtraReleases: []config.ReleaseToken{},
				OSTaints:        config.OSTaints{Tolerate: true, Keys: []string{"os", "node.kubernetes.io/os"}, Effects: []v1.TaintEffect{v1.TaintEffectNoSchedule}},
				ImageResolution: defaultImageResolution(),
			}
			if diff := cmp.Diff(want, args, cmpIgnoreTypeMeta); diff != "" {
				t.Errorf("WindowsAware args (-want +got):\n%s", diff)
			}
		})
	}
}

func waArgs(t *testing.T, cfg *schedconfig.KubeSchedulerConfiguration) *config.WindowsAwareArgs {
	t.Helper()
	for _, p := range cfg.Profiles {
		for _, pc := range p.PluginConfig {
			if pc.Name == "WindowsAware" {
				args, ok := pc.Args.(*config.WindowsAwareArgs)
				if !ok {
					t.Fatalf("WindowsAware args decoded as %T", pc.Args)
				}
				return args
			}
		}
	}
	t.Fatal("no WindowsAware pluginConfig")
	return nil
}

// TestBadArgsStopTheScheduler: a bad value stops the scheduler at start with
// a message that names the field.
func TestBadArgsStopTheScheduler(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  [2]string
		field string
	}{
		{name: "unknown defaultOS", edit: [2]string{"defaultOS: linux", "defaultOS: macos"}, field: "defaultOS"},
		{name: "unknown mode", edit: [2]string{"compatibilityMode: containerd", "compatibilityMode: hyperv"}, field: "compatibilityMode"},
		{name: "misspelt field", edit: [2]string{"defaultOS: linux", "defaultOs: linux"}, field: "defaultOs"},
		{name: "bad extra build", edit: [2]string{"extraReleases: []", "extraReleases: [{token: ltsc2028, build: ten}]"}, field: "extraReleases[0].build"},
		{name: "bad extra token", edit: [2]string{"extraReleases: []", "extraReleases: [{token: ltsc-2028, build: 10.0.30000}]"}, field: "extraReleases[0].token"},
		{name: "bad taint key", edit: [2]string{`keys: ["os", "node.kubernetes.io/os"]`, `keys: ["os", "not a key!"]`}, field: "osTaints.keys[1]"},
		{name: "bad taint effect", edit: [2]string{`effects: ["NoSchedule"]`, `effects: ["Sometimes"]`}, field: "osTaints.effects[0]"},
		{name: "NoExecute taint effect", edit: [2]string{`effects: ["NoSchedule"]`, `effects: ["NoSchedule", "NoExecute"]`}, field: "osTaints.effects[1]"},
		{name: "no keys", edit: [2]string{`keys: ["os", "node.kubernetes.io/os"]`, `keys: []`}, field: "osTaints.keys"},
		{name: "resolution without registries", edit: [2]string{"defaultOS: linux", "defaultOS: linux\n          imageResolution: {scope: Windows}"}, field: "imageResolution.registries"},
		{name: "bad preemption args", edit: [2]string{"    pluginConfig:\n", "    pluginConfig:\n      - name: WindowsAwarePreemption\n        args: {minCandidateNodesPercentage: 101}\n"}, field: "minCandidateNodesPercentage"},
		{name: "misspelt preemption field", edit: [2]string{"    pluginConfig:\n", "    pluginConfig:\n      - name: WindowsAwarePreemption\n        args: {minCandidateNodesPercent: 5}\n"}, field: "minCandidateNodesPercent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := setup(t, shipped(t, replaceConfig, tc.edit))
			if err == nil {
				t.Fatal("the scheduler accepted it")
			}
			if !strings.Contains(err.Error(), tc.field) {
				t.Errorf("error %q does not name %s", err, tc.field)
			}
		})
	}
}

// TestArgsDefaults: the plugin listed with no pluginConfig, or args that
// leave fields out, get the documented defaults.
func TestArgsDefaults(t *testing.T) {
	file := writeTemp(t, `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: windows-aware
    plugins:
      multiPoint:
        enabled: [{name: WindowsAware}, {name: OSTaintToleration}]
    pluginConfig:
      - name: WindowsAware
        args:
          osTaints: {tolerate: false}
`)
	profiles, cfg, err := setup(t, shipped(t, file))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := profiles["windows-aware"]; !ok {
		t.Fatal("no windows-aware profile")
	}
	got := waArgs(t, cfg)
	want := &config.WindowsAwareArgs{
		DefaultOS: "linux", CompatibilityMode: "containerd",
		OSTaints:        config.OSTaints{Tolerate: false, Keys: []string{"os", "node.kubernetes.io/os"}, Effects: []v1.TaintEffect{v1.TaintEffectNoSchedule}},
		ImageResolution: defaultImageResolution(),
	}
	if diff := cmp.Diff(want, got, cmpIgnoreTypeMeta); diff != "" {
		t.Errorf("defaulted args (-want +got):\n%s", diff)
	}
}

// defaultImageResolution is the resolution args a configuration that
// leaves them out gets: off.
func defaultImageResolution() config.ImageResolution {
	return config.ImageResolution{
		Scope:           config.ResolutionNone,
		GateTimeout:     metav1.Duration{Duration: 10 * time.Second},
		OnFailure:       config.OnFailureTagRules,
		Cache:           config.ImageCache{MaxEntries: 20000, TagTTL: metav1.Duration{Duration: 10 * time.Minute}, NegativeTTL: metav1.Duration{Duration: time.Minute}},
		Concurrency:     config.ImageConcurrency{Workers: 8, PerRegistry: 4},
		RequestTimeout:  metav1.Duration{Duration: 10 * time.Second},
		MaxIndexEntries: 256,
	}
}

func writeTemp(t *testing.T, text string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(f, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestRegistryExampleConfig: the example with image resolution on is the
// shipped configuration and one block more, which the scheduler accepts.
func TestRegistryExampleConfig(t *testing.T) {
	const example = "../../manifests/scheduler-config-registry.yaml"
	data, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	replace, err := os.ReadFile(replaceConfig)
	if err != nil {
		t.Fatal(err)
	}
	// Past their header comments, the example is the shipped file with
	// imageResolution appended to the WindowsAware args.
	body := func(b []byte) string { s := string(b); return s[strings.Index(s, "\napiVersion:"):] }
	got, want := body(data), body(replace)
	if !strings.HasPrefix(got, want) || !strings.HasPrefix(strings.TrimLeft(got[len(want):], " #\n"), "Read image platforms") {
		t.Errorf("%s is not %s with an imageResolution block appended", example, replaceConfig)
	}

	profiles, cfg, err := setup(t, shipped(t, example))
	if err != nil {
		t.Fatalf("the scheduler refuses %s: %v", example, err)
	}
	shippedProfiles, _, err := setup(t, shipped(t, replaceConfig))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(shippedProfiles, profiles); diff != "" {
		t.Errorf("plugins differ from the shipped configuration's (-shipped +example):\n%s", diff)
	}
	if !contains(names(&profiles["windows-aware"].PreEnqueue), "WindowsAware") {
		t.Errorf("windows-aware PreEnqueue %v lacks WindowsAware: pods would not wait for their images", names(&profiles["windows-aware"].PreEnqueue))
	}
	r := waArgs(t, cfg).ImageResolution
	var hosts []string
	for _, reg := range r.Registries {
		hosts = append(hosts, reg.Host)
		if reg.AllowPrivate || reg.Insecure {
			t.Errorf("registry %s: the example allows private addresses or plain HTTP", reg.Host)
		}
	}
	if r.Scope != config.ResolutionWindows || r.OnFailure != config.OnFailureTagRules || r.GateTimeout.Duration != 10*time.Second ||
		r.Credentials.PodPullSecrets || !slices.Equal(hosts, []string{"mcr.microsoft.com", "*.azurecr.io", "docker.io"}) {
		t.Errorf("imageResolution = %+v", r)
	}
}
