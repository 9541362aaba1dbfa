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

package controlplane

import (
	"context"
	"fmt"
	"maps"
	"os"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// PublishSchedulerConfig writes the configuration the schedulers run with
// into a ConfigMap of namespace labelled as the chart labels its own, so
// that kubectl windows-aware finds the args this cluster's scheduler runs
// with, as it does on an installed cluster, instead of the defaults.
func (c *Cluster) PublishSchedulerConfig(ctx context.Context, namespace string) error {
	data, err := os.ReadFile(c.SchedulerConfigFile)
	if err != nil {
		return fmt.Errorf("the scheduler's configuration: %w", err)
	}
	cm := &v1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: wellknown.SchedulerConfigMap, Labels: maps.Clone(wellknown.ConfigMapLabels)},
		Data:       map[string]string{"scheduler-config.yaml": string(data)},
	}
	_, err = c.Client.CoreV1().ConfigMaps(namespace).Create(ctx, cm, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		_, err = c.Client.CoreV1().ConfigMaps(namespace).Update(ctx, cm, metav1.UpdateOptions{})
	}
	if err != nil {
		return fmt.Errorf("publishing the scheduler's configuration as ConfigMap %s/%s: %w", namespace, wellknown.SchedulerConfigMap, err)
	}
	return nil
}
