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
	"fmt"
	"os"
	"slices"
	"strings"

	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	kubeschedulerscheme "k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/apis/config/scheme" // also WindowsAwareArgs in the scheduler's scheme
)

// Default is the schedulerName of the shipped windows-aware profile.
const Default = "windows-aware"

// Profile is a scheduler profile that enables WindowsAware: what the
// scheduler's plugins, the webhooks, the gate remover and the reports decide
// by.
type Profile struct {
	// Name is its schedulerName.
	Name string
	// Args are its WindowsAware args, defaulted.
	Args *config.WindowsAwareArgs
}

// Load reads a KubeSchedulerConfiguration file as the scheduler
// does (decoded, defaulted and converted by its scheme) and returns the
// profile named name, or, when name is empty, the one profile that
// enables WindowsAware (Default when several do). With no file, it
// is Default with the default args.
func Load(file, name string) (Profile, error) {
	if file == "" {
		if name == "" {
			name = Default
		}
		return Profile{Name: name, Args: scheme.DefaultArgs()}, nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return Profile{}, err
	}
	return Parse(data, file, name)
}

// Parse is Load of a configuration read from source (a file,
// or a ConfigMap's key).
func Parse(data []byte, file, name string) (Profile, error) {
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
	case slices.Contains(candidates, Default):
		name = Default
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
