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
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/windows-aware/windows-aware/pkg/explain"
)

// SchedulerOptions say which scheduler's args decide and how their
// registries are asked: the part of explain's and upgrade-plan's options
// they share, with one set of flags. status has no flag for them: it
// reads the zero SchedulerOptions, which find the chart's ConfigMap,
// explain's choice without flags.
type SchedulerOptions struct {
	// Config is a KubeSchedulerConfiguration file; ConfigMap names one in
	// the cluster (NAMESPACE/NAME). With neither, the chart's ConfigMap in
	// SchedulerNamespace (DefaultSchedulerNamespace when empty) decides,
	// else the default args; Resolve needs one of the three.
	Config, ConfigMap  string
	SchedulerNamespace string
	// TrustClusterEndpoints lets Resolve use the registries' endpoints,
	// insecure and allowPrivate of a configuration read from the cluster;
	// without it this machine asks each registry's own host, over
	// verified TLS, at public addresses only.
	TrustClusterEndpoints bool
	// Profile is the schedulerName whose args decide.
	Profile string
	// Resolve asks the registries, as the scheduler's imageResolution
	// does, for up to ResolveTimeout a pod and ResolveDeadline in all:
	// past it, the pods not yet answered are reported unresolved.
	Resolve         bool
	ResolveTimeout  time.Duration
	ResolveDeadline time.Duration
}

// AddFlags adds the flags of SchedulerOptions to fs.
func (o *SchedulerOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Config, "config", "", "the scheduler's KubeSchedulerConfiguration file, for its WindowsAware args")
	fs.StringVar(&o.ConfigMap, "config-map", "", "NAMESPACE/NAME of the ConfigMap that holds the scheduler's configuration")
	fs.StringVar(&o.SchedulerNamespace, "scheduler-namespace", DefaultSchedulerNamespace, "the namespace of the Helm chart's ConfigMap, when neither --config nor --config-map is given")
	fs.BoolVar(&o.TrustClusterEndpoints, "trust-cluster-endpoints", false, "with --resolve, use the registries' endpoints, insecure and allowPrivate of a configuration read from the cluster")
	fs.StringVar(&o.Profile, "profile", "", "the profile (schedulerName) whose args decide (default: the one that enables WindowsAware)")
	fs.BoolVar(&o.Resolve, "resolve", false, "ask the images' registries, as the scheduler's imageResolution does")
	fs.DurationVar(&o.ResolveTimeout, "resolve-timeout", 30*time.Second, "how long --resolve waits for a pod's registries")
	fs.DurationVar(&o.ResolveDeadline, "resolve-deadline", 2*time.Minute, "how long --resolve waits for the registries in all; pods not answered by then are reported unresolved")
}

// explainer is the explainer of the args that decide (profile), and what
// starts asking their registries: resolve does nothing without Resolve,
// else it starts startResolution and returns what stops it. cluster is
// nil when there is none.
func (o *SchedulerOptions) explainer(ctx context.Context, cluster *explain.Cluster, stderr io.Writer) (
	e *explain.Explainer, resolve func(context.Context) (stop func(), err error), err error) {
	profile, source, err := o.profile(ctx, cluster, stderr)
	if err != nil {
		return nil, nil, err
	}
	if e, err = explain.NewExplainer(ctx, profile); err != nil {
		return nil, nil, err
	}
	resolve = func(ctx context.Context) (func(), error) {
		if !o.Resolve {
			return func() {}, nil
		}
		return o.startResolution(ctx, e, profile, source, cluster, stderr)
	}
	return e, resolve, nil
}
