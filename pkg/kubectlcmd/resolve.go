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
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/explain"
	"github.com/windows-aware/windows-aware/pkg/imagefacts"
	"github.com/windows-aware/windows-aware/pkg/imageinspect"
	"github.com/windows-aware/windows-aware/pkg/schedprofile"
)

// startResolution lets the explainer ask the registries as the profile's
// imageResolution says: the same scope, allowlist, limits and onFailure,
// with the credentials of this machine (the local Docker config) in place
// of the scheduler's file, and the pods' pull secrets read with the user's
// own access when the args read them. It returns what stops it.
func (o *SchedulerOptions) startResolution(ctx context.Context, e *explain.Explainer, profile schedprofile.Profile, source profileSource,
	cluster *explain.Cluster, stderr io.Writer) (func(), error) {
	args := profile.Args.ImageResolution
	if !imageinspect.Enabled(&args) {
		return nil, fmt.Errorf("--resolve: profile %q reads no image from registries (its imageResolution.scope is None)", profile.Name)
	}
	args.Credentials.DockerConfigFile = localDockerConfig()
	args.Registries = slices.Clone(args.Registries)
	for i := range args.Registries {
		r := &args.Registries[i]
		if source == fromCluster && !o.TrustClusterEndpoints {
			if dropped := untrustedReach(r); dropped != "" {
				fmt.Fprintf(stderr, "registry %s: %s of the cluster's configuration not used on this machine (--trust-cluster-endpoints uses them)\n", r.Host, dropped)
			}
		}
		if r.CAFile == "" {
			continue
		}
		if _, err := os.Stat(r.CAFile); err != nil {
			fmt.Fprintf(stderr, "registry %s: its caFile %s is not on this machine; the system's roots are trusted instead\n", r.Host, r.CAFile)
			r.CAFile = ""
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
	// One deadline for the command, whatever the number of pods and
	// passes (the what-if asks again per pod), and ResolveTimeout a pod
	// within it.
	deadline := time.Now().Add(o.ResolveDeadline)
	e.Resolve = func(ctx context.Context, pod *v1.Pod) error {
		ctx, done := context.WithTimeout(ctx, o.ResolveTimeout)
		defer done()
		if o.ResolveDeadline > 0 {
			var stop context.CancelFunc
			ctx, stop = context.WithDeadline(ctx, deadline)
			defer stop()
		}
		return facts.Resolve(ctx, pod)
	}
	return cancel, nil
}

// untrustedReach clears what of a registry's entry would send this
// machine's requests, and its Docker config's credentials, somewhere other
// than the registry's own host over verified TLS at a public address: its
// endpoints (mirrors), insecure and allowPrivate. Whoever can write the
// cluster's configuration is not trusted with where a workstation's
// credentials go. It names what it cleared, "" for nothing.
func untrustedReach(r *config.RegistryHost) string {
	var dropped []string
	if len(r.Endpoints) > 0 {
		dropped = append(dropped, fmt.Sprintf("endpoints %s", strings.Join(r.Endpoints, ", ")))
		r.Endpoints = nil
	}
	if r.Insecure {
		dropped = append(dropped, "insecure")
		r.Insecure = false
	}
	if r.AllowPrivate {
		dropped = append(dropped, "allowPrivate")
		r.AllowPrivate = false
	}
	return strings.Join(dropped, ", ")
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
