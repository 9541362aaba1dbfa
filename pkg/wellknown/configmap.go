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

package wellknown

// ConfigMapLabels label the ConfigMap that holds the scheduler's
// configuration: the Helm chart's, manifests/beside's and the demo's carry
// them, and the kubectl plugin finds the configuration by them.
var ConfigMapLabels = map[string]string{
	"app.kubernetes.io/name":      "windows-aware-scheduler",
	"app.kubernetes.io/component": "scheduler",
}

// SchedulerConfigMap is the name of the ConfigMap that holds the
// scheduler's configuration: the name manifests/beside and the chart (under
// its default release name) give theirs, the test control plane's, and the
// one docs/kubectl-plugin.md has an administrator publish a static pod's
// configuration as.
const SchedulerConfigMap = "windows-aware-scheduler-config"
