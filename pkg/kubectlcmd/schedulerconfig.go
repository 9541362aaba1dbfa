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
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/windows-aware/windows-aware/pkg/explain"
	"github.com/windows-aware/windows-aware/pkg/schedprofile"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// chartConfigMaps selects the ConfigMaps labelled
// wellknown.ConfigMapLabels.
var chartConfigMaps = labels.SelectorFromSet(wellknown.ConfigMapLabels).String()

// staticSchedulers selects kubeadm's scheduler static pods, which the
// static-pod install replaces with ours.
const staticSchedulers = "component=kube-scheduler,tier=control-plane"

// DefaultSchedulerNamespace is where explain looks for the chart's
// ConfigMap when no flag names the configuration: the namespace the
// README installs the chart into.
const DefaultSchedulerNamespace = "kube-system"

// profileSource says where the args that decide came from, and so how
// far they are trusted on this machine.
type profileSource int

const (
	// fromDefaults: no configuration, the default args.
	fromDefaults profileSource = iota
	// fromFile: a file on this machine (--config), trusted whole.
	fromFile
	// fromCluster: a ConfigMap (--config-map, or the chart's): the
	// registries' endpoints, insecure and allowPrivate are not used on
	// this machine without --trust-cluster-endpoints.
	fromCluster
)

// profile finds the args that decide: a file, a ConfigMap named, the
// chart's ConfigMap in the scheduler's namespace, or the default args.
// Only the scheduler's namespace is searched: a ConfigMap with the chart's
// labels is anybody's to create in a namespace of their own, and its args
// would decide where this machine sends its registry credentials.
func (o *SchedulerOptions) profile(ctx context.Context, cluster *explain.Cluster, stderr io.Writer) (schedprofile.Profile, profileSource, error) {
	switch {
	case o.Config != "":
		p, err := schedprofile.Load(o.Config, o.Profile)
		return p, fromFile, err
	case o.ConfigMap != "":
		if cluster == nil {
			return schedprofile.Profile{}, fromDefaults, errors.New("--config-map needs a cluster")
		}
		ns, name, ok := strings.Cut(o.ConfigMap, "/")
		if !ok || ns == "" || name == "" {
			return schedprofile.Profile{}, fromDefaults, fmt.Errorf("--config-map %q: want NAMESPACE/NAME", o.ConfigMap)
		}
		p, err := configMapProfile(ctx, cluster, ns, name, o.Profile)
		return p, fromCluster, err
	case cluster != nil:
		ns := o.schedulerNamespace()
		found, err := cluster.Client.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{LabelSelector: chartConfigMaps, Limit: 10})
		switch {
		case err == nil && len(found.Items) == 1:
			cm := found.Items[0]
			fmt.Fprintf(stderr, "args of the scheduler's configuration in ConfigMap %s/%s\n", cm.Namespace, cm.Name)
			p, err := configMapProfile(ctx, cluster, cm.Namespace, cm.Name, o.Profile)
			return p, fromCluster, err
		case err == nil && len(found.Items) > 1:
			var names []string
			for _, cm := range found.Items {
				names = append(names, cm.Namespace+"/"+cm.Name)
			}
			return schedprofile.Profile{}, fromDefaults, fmt.Errorf("several schedulers' configurations in namespace %s (%s): name one with --config-map", ns, strings.Join(names, ", "))
		case o.Resolve && err != nil:
			return schedprofile.Profile{}, fromDefaults, fmt.Errorf("--resolve needs the scheduler's configuration: give --config FILE or --config-map NAMESPACE/NAME (looking for the chart's ConfigMap in namespace %s: %w)", ns, err)
		case o.Resolve:
			return schedprofile.Profile{}, fromDefaults, fmt.Errorf("--resolve needs the scheduler's configuration: give --config FILE or --config-map NAMESPACE/NAME (namespace %s has no ConfigMap of the chart; --scheduler-namespace names another)%s",
				ns, staticPodHint(ctx, cluster, ns))
		case err != nil && !apierrors.IsForbidden(err):
			return schedprofile.Profile{}, fromDefaults, fmt.Errorf("looking for the scheduler's configuration in namespace %s: %w", ns, err)
		}
		fmt.Fprintf(stderr, "the default args decide: no scheduler configuration found in namespace %s (--config, --config-map or --scheduler-namespace name one)%s\n",
			ns, staticPodHint(ctx, cluster, ns))
	}
	p, err := schedprofile.Load("", o.Profile)
	return p, fromDefaults, err
}

// staticPodHint names the configuration file of a scheduler that runs as
// a static pod in ns, and how to hand it to explain: the file is on the
// control-plane nodes, out of the API's reach. "" when there is none, or
// the pods cannot be listed.
func staticPodHint(ctx context.Context, cluster *explain.Cluster, ns string) string {
	pods, err := cluster.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: staticSchedulers, Limit: 10})
	if err != nil {
		return ""
	}
	for _, p := range pods.Items {
		for _, c := range p.Spec.Containers {
			for _, arg := range append(slices.Clone(c.Command), c.Args...) {
				if file, ok := strings.CutPrefix(arg, "--config="); ok {
					return fmt.Sprintf("; static pod %s/%s runs with --config=%s on node %s: copy that file and give --config, or publish it as ConfigMap %s/%s (docs/kubectl-plugin.md)",
						p.Namespace, p.Name, file, p.Spec.NodeName, ns, wellknown.SchedulerConfigMap)
				}
			}
		}
	}
	return ""
}

func (o *SchedulerOptions) schedulerNamespace() string {
	if o.SchedulerNamespace == "" {
		return DefaultSchedulerNamespace
	}
	return o.SchedulerNamespace
}

// configMapProfile reads the profile from a ConfigMap: its one key, or
// the chart's.
func configMapProfile(ctx context.Context, cluster *explain.Cluster, ns, name, profile string) (schedprofile.Profile, error) {
	cm, err := cluster.Client.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return schedprofile.Profile{}, fmt.Errorf("the scheduler's configuration: %w", err)
	}
	keys := slices.Sorted(maps.Keys(cm.Data))
	key := ""
	switch {
	case len(keys) == 1:
		key = keys[0]
	case slices.Contains(keys, "scheduler-config.yaml"):
		key = "scheduler-config.yaml"
	default:
		return schedprofile.Profile{}, fmt.Errorf("ConfigMap %s/%s: keys %q, want one, or scheduler-config.yaml", ns, name, keys)
	}
	return schedprofile.Parse([]byte(cm.Data[key]), fmt.Sprintf("ConfigMap %s/%s key %s", ns, name, key), profile)
}
