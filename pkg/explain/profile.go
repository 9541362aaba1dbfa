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

package explain

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	kubeschedulerscheme "k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/apis/config/scheme" // also WindowsAwareArgs in the scheduler's scheme
	"github.com/windows-aware/windows-aware/pkg/apis/config/validation"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// DefaultProfile is the schedulerName of the shipped windows-aware profile.
const DefaultProfile = "windows-aware"

// Profile is the scheduler profile explain decides as.
type Profile struct {
	// Name is its schedulerName.
	Name string
	// Args are its WindowsAware args, defaulted.
	Args *config.WindowsAwareArgs
}

// LoadProfile reads a KubeSchedulerConfiguration file as the scheduler
// does (decoded, defaulted and converted by its scheme) and returns the
// profile named name, or, when name is empty, the one profile that
// enables WindowsAware (DefaultProfile when several do). With no file, it
// is DefaultProfile with the default args.
func LoadProfile(file, name string) (Profile, error) {
	if file == "" {
		if name == "" {
			name = DefaultProfile
		}
		return Profile{Name: name, Args: scheme.DefaultArgs()}, nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return Profile{}, err
	}
	return ParseProfile(data, file, name)
}

// ParseProfile is LoadProfile of a configuration read from source (a file,
// or a ConfigMap's key).
func ParseProfile(data []byte, file, name string) (Profile, error) {
	obj, gvk, err := kubeschedulerscheme.Codecs.UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		return Profile{}, fmt.Errorf("%s: %w", file, err)
	}
	cfg, ok := obj.(*schedconfig.KubeSchedulerConfiguration)
	if !ok {
		return Profile{}, fmt.Errorf("%s: a %s, not a KubeSchedulerConfiguration", file, gvk)
	}
	var candidates []string
	for _, p := range cfg.Profiles {
		if enablesWindowsAware(p.Plugins) {
			candidates = append(candidates, p.SchedulerName)
		}
	}
	switch {
	case name != "" && !slices.Contains(candidates, name):
		return Profile{}, fmt.Errorf("%s: no profile %q enables %s (profiles that do: %s)", file, name, config.PluginName, strings.Join(candidates, ", "))
	case name != "":
	case len(candidates) == 0:
		return Profile{}, fmt.Errorf("%s: no profile enables %s", file, config.PluginName)
	case len(candidates) == 1:
		name = candidates[0]
	case slices.Contains(candidates, DefaultProfile):
		name = DefaultProfile
	default:
		return Profile{}, fmt.Errorf("%s: several profiles enable %s (%s): name one", file, config.PluginName, strings.Join(candidates, ", "))
	}
	profile := Profile{Name: name, Args: scheme.DefaultArgs()}
	for _, p := range cfg.Profiles {
		if p.SchedulerName != name {
			continue
		}
		for _, pc := range p.PluginConfig {
			if pc.Name != config.PluginName || pc.Args == nil {
				continue
			}
			args, ok := pc.Args.(*config.WindowsAwareArgs)
			if !ok {
				return Profile{}, fmt.Errorf("%s: profile %q: %s args of type %T", file, name, config.PluginName, pc.Args)
			}
			profile.Args = args
		}
	}
	return profile, nil
}

// enablesWindowsAware reports whether a profile's plugins enable
// WindowsAware at PreFilter, where it decides (directly or by multiPoint).
func enablesWindowsAware(p *schedconfig.Plugins) bool {
	if p == nil {
		return false
	}
	named := func(set schedconfig.PluginSet) bool {
		return slices.ContainsFunc(set.Enabled, func(pl schedconfig.Plugin) bool { return pl.Name == config.PluginName })
	}
	disabled := slices.ContainsFunc(p.PreFilter.Disabled, func(pl schedconfig.Plugin) bool {
		return pl.Name == config.PluginName || pl.Name == "*"
	})
	return named(p.PreFilter) || (named(p.MultiPoint) && !disabled)
}

// NewExplainer builds the decision of the profile's args, validated as
// the scheduler validates them. It decides by tags, without asking any
// registry.
func NewExplainer(_ context.Context, profile Profile) (*Explainer, error) {
	if err := validation.ValidateWindowsAwareArgs(nil, profile.Args); err != nil {
		return nil, fmt.Errorf("profile %q: invalid WindowsAwareArgs: %w", profile.Name, err)
	}
	decider, err := podneeds.New(profile.Args)
	if err != nil {
		return nil, fmt.Errorf("profile %q: %w", profile.Name, err)
	}
	gates := feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)
	return &Explainer{Decider: decider, TaintComparisonOperators: gates.EnableTaintTolerationComparisonOperators,
		Profile: profile.Name, Releases: Releases(profile.Args.ExtraReleases)}, nil
}

// Releases are the Windows releases builds are named by: the built-in ones
// and the args' extraReleases.
func Releases(extra []config.ReleaseToken) []windows.Release {
	releases := slices.Concat(windows.KnownReleases, windows.HostOnlyReleases)
	for _, r := range extra {
		if b, ok := windows.ParseBuild(r.Build); ok {
			releases = append(releases, windows.Release{Token: r.Token, Build: b})
		}
	}
	return releases
}
