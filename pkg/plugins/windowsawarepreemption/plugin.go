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

package windowsawarepreemption

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
	configv1 "k8s.io/kube-scheduler/config/v1"
	fwk "k8s.io/kube-scheduler/framework"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	kubeschedulerscheme "k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/utils/clock"
)

// Name is the name of the plugin.
const Name = "WindowsAwarePreemption"

// WindowsAwarePreemption is upstream's DefaultPreemption, embedded so that
// every extension point but PreEnqueue is upstream's own, with a watcher
// that activates a pod DefaultPreemption's PreEnqueue held once it lets
// the pod through.
//
// The preemption machinery inside keeps upstream's plugin name: the
// victims' messages and the preemption goroutines' metrics say
// DefaultPreemption, as they do under the stock profile, since the code
// that writes them is upstream's.
type WindowsAwarePreemption struct {
	*defaultpreemption.DefaultPreemption
	watchers *watchers
}

var (
	_ fwk.PreEnqueuePlugin  = &WindowsAwarePreemption{}
	_ fwk.PostFilterPlugin  = &WindowsAwarePreemption{}
	_ fwk.EnqueueExtensions = &WindowsAwarePreemption{}
)

// New builds DefaultPreemption from args, DefaultPreemptionArgs given under
// this plugin's name, with the feature gates the scheduler's own registry
// gives it, and wraps it.
func New(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	args, err := decodeArgs(obj)
	if err != nil {
		return nil, err
	}
	// As NewInTreeRegistry does for DefaultPreemption: the gates as the
	// command line left them, read when the framework is built.
	fts := feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)
	inner, err := defaultpreemption.New(ctx, args, h, fts)
	if err != nil {
		return nil, err
	}
	return &WindowsAwarePreemption{
		DefaultPreemption: inner,
		watchers: &watchers{
			// The scheduler's context, not a scheduling cycle's: a watcher
			// outlives the PreEnqueue call that starts it, and ends with
			// the scheduler (or with the harness's workload, in tests).
			ctx:      klog.NewContext(ctx, klog.FromContext(ctx).WithValues("plugin", Name)),
			gate:     inner.PreEnqueue,
			activate: h.Activate,
			pods:     h.SharedInformerFactory().Core().V1().Pods().Lister(),
			clock:    clock.RealClock{},
			interval: pollInterval,
			bound:    watchBound,
			running:  map[types.UID]struct{}{},
		},
	}, nil
}

// Name returns the plugin's name.
func (pl *WindowsAwarePreemption) Name() string { return Name }

// PreEnqueue is DefaultPreemption's (watchers.gate). When it holds the
// pod, a watcher makes sure the pod is activated once the preemption it
// waits for has ended, whether or not an event comes to requeue it.
// PreEnqueue runs under the scheduling queue's lock: the watcher is
// started, never waited for, and it is the watcher, later and outside the
// lock, that calls Activate.
func (pl *WindowsAwarePreemption) PreEnqueue(ctx context.Context, p *v1.Pod) *fwk.Status {
	status := pl.watchers.gate(ctx, p)
	if !status.IsSuccess() {
		pl.watchers.watch(p)
	}
	return status
}

// argsKind is the kind the args decode as: DefaultPreemption's own.
var argsKind = configv1.SchemeGroupVersion.WithKind("DefaultPreemptionArgs")

// decodeArgs turns the args the framework hands over into DefaultPreemption's
// internal args. The scheduler decodes, defaults and converts the args of a
// plugin whose name+"Args" is a kind of its scheme; this plugin's args have
// another name, so they arrive as they were written (runtime.Unknown), or
// nil when none were. They are decoded here the way the scheduler decodes
// DefaultPreemption's: strictly (a misspelt field stops the scheduler),
// defaulted and converted by the scheduler's scheme, so that no args are
// upstream's defaults. defaultpreemption.New validates them with
// upstream's validation.
func decodeArgs(obj runtime.Object) (*schedconfig.DefaultPreemptionArgs, error) {
	raw := []byte("{}")
	switch a := obj.(type) {
	case nil:
	case *schedconfig.DefaultPreemptionArgs:
		if a != nil {
			return a, nil
		}
	case *runtime.Unknown:
		if a != nil && len(a.Raw) > 0 {
			raw = a.Raw
		}
	default:
		return nil, fmt.Errorf("args for plugin %s: want DefaultPreemptionArgs, got %T", Name, obj)
	}
	decoded, _, err := kubeschedulerscheme.Codecs.UniversalDecoder().Decode(raw, &argsKind, nil)
	if err != nil {
		return nil, fmt.Errorf("decoding args for plugin %s: %w", Name, err)
	}
	args, ok := decoded.(*schedconfig.DefaultPreemptionArgs)
	if !ok {
		return nil, fmt.Errorf("args for plugin %s: want DefaultPreemptionArgs, got %T", Name, decoded)
	}
	return args, nil
}
