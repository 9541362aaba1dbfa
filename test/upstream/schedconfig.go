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
	"fmt"
	"os"
	"reflect"
	"slices"

	kubeschedulerconfigv1 "k8s.io/kube-scheduler/config/v1"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	"sigs.k8s.io/yaml"

	_ "github.com/windows-aware/windows-aware/pkg/apis/config/scheme" // WindowsAwareArgs in the scheduler's scheme
)

// defaultProfile is the profile a pod that names no scheduler gets, and
// the only one upstream's default configuration has.
const defaultProfile = "default-scheduler"

// shippedProfileName is the profile of manifests/scheduler-config.yaml
// that adds the plugins.
const shippedProfileName = "windows-aware"

// decodeVersioned reads a KubeSchedulerConfiguration as written, through
// the scheduler's scheme but without defaulting it: defaulting would spell
// out every default plugin and every plugin's args, and the harness
// defaults the configuration it is given again.
func decodeVersioned(data []byte) (*kubeschedulerconfigv1.KubeSchedulerConfiguration, error) {
	obj, gvk, err := scheme.Codecs.UniversalDeserializer().Decode(data, nil, nil)
	if err != nil {
		return nil, err
	}
	cfg, ok := obj.(*kubeschedulerconfigv1.KubeSchedulerConfiguration)
	if !ok {
		return nil, fmt.Errorf("want a %s KubeSchedulerConfiguration, got %s", kubeschedulerconfigv1.SchemeGroupVersion, gvk)
	}
	return cfg, nil
}

// shippedProfile reads the windows-aware profile of the shipped
// configuration: the plugins, extension points and args every workload's
// profile gets.
func shippedProfile(path string) (*kubeschedulerconfigv1.KubeSchedulerProfile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	cfg, err := decodeVersioned(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for i := range cfg.Profiles {
		if p := &cfg.Profiles[i]; p.SchedulerName != nil && *p.SchedulerName == shippedProfileName {
			if p.Plugins == nil {
				return nil, fmt.Errorf("%s: profile %s names no plugins", path, shippedProfileName)
			}
			return p, nil
		}
	}
	return nil, fmt.Errorf("%s: no profile %s", path, shippedProfileName)
}

// withPlugins returns the configuration a workload runs with: its own
// (data; nil where it has none, which is upstream's default configuration)
// with ours' plugins and args added to the default-scheduler profile and
// to every other profile that profiles names. Everything else it keeps.
func withPlugins(data []byte, ours *kubeschedulerconfigv1.KubeSchedulerProfile, profiles []string) ([]byte, error) {
	cfg := &kubeschedulerconfigv1.KubeSchedulerConfiguration{
		Profiles: []kubeschedulerconfigv1.KubeSchedulerProfile{{SchedulerName: ptrTo(defaultProfile)}},
	}
	if data != nil {
		var err error
		if cfg, err = decodeVersioned(data); err != nil {
			return nil, err
		}
	}
	cfg.APIVersion = kubeschedulerconfigv1.SchemeGroupVersion.String()
	cfg.Kind = "KubeSchedulerConfiguration"
	found := false
	for i := range cfg.Profiles {
		p := &cfg.Profiles[i]
		// A profile without a name is the default one (defaulting names it).
		name := defaultProfile
		if p.SchedulerName != nil {
			name = *p.SchedulerName
		}
		if name != defaultProfile && !slices.Contains(profiles, name) {
			continue
		}
		found = found || name == defaultProfile
		addPlugins(p, ours)
	}
	if !found {
		return nil, fmt.Errorf("no profile %s to add the plugins to", defaultProfile)
	}
	return yaml.Marshal(cfg)
}

// addPlugins appends ours' enabled and disabled plugins to dst's at every
// extension point, as the shipped configuration lists them for its own
// profile, and sets ours' plugin args, replacing any dst had for the same
// plugin.
func addPlugins(dst, ours *kubeschedulerconfigv1.KubeSchedulerProfile) {
	if dst.Plugins == nil {
		dst.Plugins = &kubeschedulerconfigv1.Plugins{}
	}
	// Every field of Plugins is a PluginSet, one per extension point; the
	// set of extension points grows with the minors.
	to := reflect.ValueOf(dst.Plugins).Elem()
	from := reflect.ValueOf(ours.Plugins).Elem()
	for i := range to.NumField() {
		t, ok := to.Field(i).Addr().Interface().(*kubeschedulerconfigv1.PluginSet)
		if !ok {
			continue
		}
		f := from.Field(i).Interface().(kubeschedulerconfigv1.PluginSet)
		t.Enabled = append(t.Enabled, f.Enabled...)
		t.Disabled = append(t.Disabled, f.Disabled...)
	}
	for _, pc := range ours.PluginConfig {
		dst.PluginConfig = slices.DeleteFunc(dst.PluginConfig, func(c kubeschedulerconfigv1.PluginConfig) bool { return c.Name == pc.Name })
		dst.PluginConfig = append(dst.PluginConfig, *pc.DeepCopy())
	}
}

func ptrTo[T any](v T) *T { return &v }
