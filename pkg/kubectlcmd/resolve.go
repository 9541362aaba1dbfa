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
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/pkg/explain"
	"github.com/windows-aware/windows-aware/pkg/imagefacts"
	"github.com/windows-aware/windows-aware/pkg/imageinspect"
)

// startResolution lets the explainer ask the registries as the profile's
// imageResolution says: the same scope, allowlist, limits and onFailure,
// with the credentials of this machine (the local Docker config) in place
// of the scheduler's file, and the pods' pull secrets read with the user's
// own access when the args read them. It returns what stops it.
func (o *ExplainOptions) startResolution(ctx context.Context, e *explain.Explainer, profile explain.Profile, cluster *explain.Cluster,
	stderr io.Writer) (func(), error) {
	args := profile.Args.ImageResolution
	if !imageinspect.Enabled(&args) {
		return nil, fmt.Errorf("--resolve: profile %q reads no image from registries (its imageResolution.scope is None)", profile.Name)
	}
	args.Credentials.DockerConfigFile = localDockerConfig()
	args.Registries = slices.Clone(args.Registries)
	for i, r := range args.Registries {
		if r.CAFile == "" {
			continue
		}
		if _, err := os.Stat(r.CAFile); err != nil {
			fmt.Fprintf(stderr, "registry %s: its caFile %s is not on this machine; the system's roots are trusted instead\n", r.Host, r.CAFile)
			args.Registries[i].CAFile = ""
		}
	}
	var getSecret imageinspect.SecretGetter
	if cluster != nil {
		getSecret = imagefacts.SecretGetterOf(cluster.Client)
	}
	ctx, cancel := context.WithCancel(ctx)
	facts, err := imagefacts.Start(ctx, &args, e.Decider, getSecret, nil)
	if err != nil {
		cancel()
		return nil, err
	}
	e.Facts = facts
	e.Resolve = func(ctx context.Context, pod *v1.Pod) error {
		ctx, done := context.WithTimeout(ctx, o.ResolveTimeout)
		defer done()
		return facts.Resolve(ctx, pod)
	}
	return cancel, nil
}

// localDockerConfig is the Docker config of this machine's user, as the
// docker CLI finds it ($DOCKER_CONFIG, else ~/.docker); "" when there is
// none.
func localDockerConfig() string {
	dir := os.Getenv("DOCKER_CONFIG")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".docker")
	}
	file := filepath.Join(dir, "config.json")
	if _, err := os.Stat(file); err != nil {
		return ""
	}
	return file
}
