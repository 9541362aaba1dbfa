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
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/utils/lru"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/apis/config/scheme"
	"github.com/windows-aware/windows-aware/pkg/apis/config/validation"
	"github.com/windows-aware/windows-aware/pkg/nodeclasses"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
)

// Name is the name of the WindowsAware plugin in the registry and in
// KubeSchedulerConfiguration.
const Name = config.PluginName

// WindowsAware places pods by OS and Windows build.
type WindowsAware struct {
	args    config.WindowsAwareArgs
	decider *podneeds.Decider
	classes *nodeclasses.Classes
	// resolution reads image platforms from registries; nil when off.
	resolution *resolution
	// classesSynced reports whether the class table's informer handler
	// has been handed every node listed at start.
	classesSynced func() bool
	// handle is the scheduler's; nil in tools and some tests.
	handle fwk.Handle
	// blindReported holds the UIDs of the pods PostFilter reported as
	// invisible to autoscalers, so that each gets one Event.
	blindReported *lru.Cache
	// taintComparisonOperators follows the feature gate of that name, for
	// PostFilter's view of taints as upstream TaintToleration has it.
	taintComparisonOperators bool
	// lastCycle is the cycle state PreFilter last wrote requirements
	// into, for Filter and Score to find them without a map lookup.
	lastCycle lastCycle
}

var (
	_ fwk.PreEnqueuePlugin  = &WindowsAware{}
	_ fwk.PreFilterPlugin   = &WindowsAware{}
	_ fwk.FilterPlugin      = &WindowsAware{}
	_ fwk.PostFilterPlugin  = &WindowsAware{}
	_ fwk.PreScorePlugin    = &WindowsAware{}
	_ fwk.ScorePlugin       = &WindowsAware{}
	_ fwk.EnqueueExtensions = &WindowsAware{}
	_ fwk.SignPlugin        = &WindowsAware{}
)

// Name returns the plugin's name.
func (pl *WindowsAware) Name() string { return Name }

// New builds the plugin from its args. Invalid args fail here, so the
// scheduler stops at start with an error that names the field.
func New(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	args, err := decodeArgs(obj)
	if err != nil {
		return nil, err
	}
	pl, err := newWindowsAware(args)
	if err != nil {
		return nil, err
	}
	Register()
	pl.handle = h
	pl.taintComparisonOperators = feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate).EnableTaintTolerationComparisonOperators
	if pl.resolution, err = newResolution(ctx, &pl.args.ImageResolution, pl.decider, h); err != nil {
		return nil, err
	}
	if h != nil && h.SharedInformerFactory() != nil {
		// The scheduler's own node informer: its objects are the ones the
		// snapshot holds, which the class table is keyed by.
		informer := h.SharedInformerFactory().Core().V1().Nodes().Informer()
		reg, err := informer.AddEventHandler(pl.classes.Handler())
		if err != nil {
			return nil, fmt.Errorf("watching nodes: %w", err)
		}
		pl.classesSynced = reg.HasSynced
		if pl.resolution != nil {
			pods := h.SharedInformerFactory().Core().V1().Pods().Informer()
			if _, err := pods.AddEventHandler(pl.resolution.podEvents()); err != nil {
				return nil, fmt.Errorf("watching pods: %w", err)
			}
		}
	}
	return pl, nil
}

// HasSynced reports whether the node class table has been told of every
// node the scheduler's informer listed at start. Until then Filter and
// Score read the labels of the nodes the table does not hold: slower, and
// just as right.
func (pl *WindowsAware) HasSynced() bool {
	return pl.classesSynced != nil && pl.classesSynced()
}

func newWindowsAware(args *config.WindowsAwareArgs) (*WindowsAware, error) {
	decider, err := podneeds.New(args)
	if err != nil {
		return nil, err
	}
	return &WindowsAware{args: *args, decider: decider, classes: nodeclasses.New(), blindReported: lru.New(maxBlindReported)}, nil
}

// decodeArgs accepts the internal args the scheduler's configuration
// decoding produces, or none at all (the plugin listed without pluginConfig),
// and validates them.
func decodeArgs(obj runtime.Object) (*config.WindowsAwareArgs, error) {
	args, ok := obj.(*config.WindowsAwareArgs)
	if obj == nil || (ok && args == nil) {
		args, ok = scheme.DefaultArgs(), true
	}
	if !ok {
		return nil, fmt.Errorf("want args of type WindowsAwareArgs, got %T", obj)
	}
	if err := validation.ValidateWindowsAwareArgs(nil, args); err != nil {
		return nil, fmt.Errorf("invalid WindowsAwareArgs: %w", err)
	}
	return args, nil
}
