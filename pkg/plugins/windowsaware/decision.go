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

package windowsaware

import (
	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/pkg/podneeds"
)

// Decide is the pod's decision as PreFilter would work it out now, from
// what the resolver already knows and without side effects: for tools
// that explain or publish the plugin's decisions.
func (pl *WindowsAware) Decide(pod *v1.Pod) *podneeds.Decision {
	return pl.decider.Decide(pod, pl.facts(true))
}
