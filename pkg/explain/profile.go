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

package explain

import (
	"context"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"

	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/schedprofile"
)

// NewExplainer builds the decision of the profile's args, validated by
// podneeds.NewForProfile. It decides by tags, without asking any
// registry.
func NewExplainer(_ context.Context, profile schedprofile.Profile) (*Explainer, error) {
	decider, err := podneeds.NewForProfile(profile.Name, profile.Args)
	if err != nil {
		return nil, err
	}
	gates := feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)
	return &Explainer{Decider: decider, TaintComparisonOperators: gates.EnableTaintTolerationComparisonOperators,
		Profile: profile.Name}, nil
}
