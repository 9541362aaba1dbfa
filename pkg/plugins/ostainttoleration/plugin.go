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

package ostainttoleration

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
)

// Name is the name of the plugin.
const Name = "OSTaintToleration"

// OSTaintToleration replaces TaintToleration at the filter extension
// point; TaintToleration keeps scoring PreferNoSchedule taints.
type OSTaintToleration struct {
	features feature.Features
}

var (
	_ fwk.FilterPlugin      = &OSTaintToleration{}
	_ fwk.EnqueueExtensions = &OSTaintToleration{}
	_ fwk.SignPlugin        = &OSTaintToleration{}
)

// New builds the plugin. It has no args of its own: the OS taints come with
// the pod's match from WindowsAware.
func New(_ context.Context, _ runtime.Object, _ fwk.Handle) (fwk.Plugin, error) {
	return &OSTaintToleration{features: feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)}, nil
}

// Name returns the plugin's name.
func (pl *OSTaintToleration) Name() string { return Name }
