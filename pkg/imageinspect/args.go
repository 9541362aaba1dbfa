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
	"github.com/windows-aware/windows-aware/pkg/apis/config"
)

// Enabled reports whether args ask for resolution at all; with scope None
// no Resolver should be built and no registry is ever asked.
func Enabled(args *config.ImageResolution) bool {
	return args.Scope != "" && args.Scope != config.ResolutionNone
}

// ConfigFromArgs builds a resolver Config from validated plugin args.
// getSecret reads pull secrets by name (e.g. through the scheduler's
// client); it is used only when args enable pod pull secrets.
func ConfigFromArgs(args *config.ImageResolution, getSecret SecretGetter) Config {
	cfg := Config{
		DockerConfigFile: args.Credentials.DockerConfigFile,
		PodPullSecrets:   args.Credentials.PodPullSecrets,
		MaxEntries:       int(args.Cache.MaxEntries),
		TagTTL:           args.Cache.TagTTL.Duration,
		NegativeTTL:      args.Cache.NegativeTTL.Duration,
		Workers:          int(args.Concurrency.Workers),
		PerRegistry:      int(args.Concurrency.PerRegistry),
		RequestTimeout:   args.RequestTimeout.Duration,
		MaxIndexEntries:  int(args.MaxIndexEntries),
	}
	if args.Credentials.PodPullSecrets {
		cfg.GetSecret = getSecret
	}
	for _, r := range args.Registries {
		cfg.Registries = append(cfg.Registries, Registry{
			Host:         r.Host,
			Endpoints:    append([]string(nil), r.Endpoints...),
			Insecure:     r.Insecure,
			AllowPrivate: r.AllowPrivate,
			CAFile:       r.CAFile,
		})
	}
	return cfg
}
