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

	"github.com/windows-aware/windows-aware/pkg/explain"
)

// chartConfigMaps selects the ConfigMap the Helm chart writes the
// scheduler's configuration into.
const chartConfigMaps = "app.kubernetes.io/name=windows-aware-scheduler,app.kubernetes.io/component=scheduler"

// profile finds the args that decide: a file, a ConfigMap named, the
// chart's ConfigMap in the cluster, or the default args.
func (o *ExplainOptions) profile(ctx context.Context, cluster *explain.Cluster, stderr io.Writer) (explain.Profile, error) {
	switch {
	case o.Config != "":
		return explain.LoadProfile(o.Config, o.Profile)
	case o.ConfigMap != "":
		if cluster == nil {
			return explain.Profile{}, errors.New("--config-map needs a cluster")
		}
		ns, name, ok := strings.Cut(o.ConfigMap, "/")
		if !ok || ns == "" || name == "" {
			return explain.Profile{}, fmt.Errorf("--config-map %q: want NAMESPACE/NAME", o.ConfigMap)
		}
		return configMapProfile(ctx, cluster, ns, name, o.Profile)
	case cluster != nil:
		found, err := cluster.Client.CoreV1().ConfigMaps(metav1.NamespaceAll).List(ctx, metav1.ListOptions{LabelSelector: chartConfigMaps, Limit: 10})
		switch {
		case err == nil && len(found.Items) == 1:
			cm := found.Items[0]
			fmt.Fprintf(stderr, "args of the scheduler's configuration in ConfigMap %s/%s\n", cm.Namespace, cm.Name)
			return configMapProfile(ctx, cluster, cm.Namespace, cm.Name, o.Profile)
		case err == nil && len(found.Items) > 1:
			var names []string
			for _, cm := range found.Items {
				names = append(names, cm.Namespace+"/"+cm.Name)
			}
			return explain.Profile{}, fmt.Errorf("several schedulers' configurations in the cluster (%s): name one with --config-map", strings.Join(names, ", "))
		case o.Resolve && err != nil:
			return explain.Profile{}, fmt.Errorf("--resolve needs the scheduler's configuration: give --config FILE or --config-map NAMESPACE/NAME (looking for the chart's ConfigMap: %w)", err)
		case o.Resolve:
			return explain.Profile{}, errors.New("--resolve needs the scheduler's configuration: give --config FILE or --config-map NAMESPACE/NAME (the cluster has no ConfigMap of the chart)")
		case err != nil && !apierrors.IsForbidden(err):
			return explain.Profile{}, fmt.Errorf("looking for the scheduler's configuration: %w", err)
		}
		fmt.Fprintln(stderr, "the default args decide: no scheduler configuration found in the cluster (--config or --config-map name one)")
	}
	return explain.LoadProfile("", o.Profile)
}

// configMapProfile reads the profile from a ConfigMap: its one key, or
// the chart's.
func configMapProfile(ctx context.Context, cluster *explain.Cluster, ns, name, profile string) (explain.Profile, error) {
	cm, err := cluster.Client.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return explain.Profile{}, fmt.Errorf("the scheduler's configuration: %w", err)
	}
	keys := slices.Sorted(maps.Keys(cm.Data))
	key := ""
	switch {
	case len(keys) == 1:
		key = keys[0]
	case slices.Contains(keys, "scheduler-config.yaml"):
		key = "scheduler-config.yaml"
	default:
		return explain.Profile{}, fmt.Errorf("ConfigMap %s/%s: keys %q, want one, or scheduler-config.yaml", ns, name, keys)
	}
	return explain.ParseProfile([]byte(cm.Data[key]), fmt.Sprintf("ConfigMap %s/%s key %s", ns, name, key), profile)
}
