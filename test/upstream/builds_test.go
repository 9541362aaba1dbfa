//go:build !k8s1_35 && !k8s1_36

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

package upstream

import (
	"context"
	"fmt"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/test/utils/client-go/ktesting"

	"github.com/windows-aware/windows-aware/pkg/plugins/ostainttoleration"
	"github.com/windows-aware/windows-aware/pkg/plugins/windowsaware"
	"github.com/windows-aware/windows-aware/pkg/plugins/windowsawarepreemption"
)

// builds counts the plugins' instances the scheduler of the running
// workload built. The framework builds only the plugins a profile enables
// at some extension point, so the count tells whether a workload ran with
// them: a merge that lost them would otherwise pass unnoticed, the
// workloads being ones the stock scheduler passes.
type builds struct {
	windowsAware, osTaintToleration, preemption atomic.Int32
}

// registry is what cmd/scheduler adds to the in-tree plugins, counted.
func (c *builds) registry() frameworkruntime.Registry {
	count := func(n *atomic.Int32, factory frameworkruntime.PluginFactory) frameworkruntime.PluginFactory {
		return func(ctx context.Context, args runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
			n.Add(1)
			return factory(ctx, args, h)
		}
	}
	return frameworkruntime.Registry{
		windowsaware.Name:           count(&c.windowsAware, windowsaware.New),
		ostainttoleration.Name:      count(&c.osTaintToleration, ostainttoleration.New),
		windowsawarepreemption.Name: count(&c.preemption, windowsawarepreemption.New),
	}
}

// reset forgets the previous workload's scheduler: the harness calls the
// pre-run hook before it starts the next one.
func (c *builds) reset() {
	c.windowsAware.Store(0)
	c.osTaintToleration.Store(0)
	c.preemption.Store(0)
}

// check holds the count to the variant once the workload's scheduler runs:
// the three plugins built in the windows-aware variant, none in the stock
// one.
func (c *builds) check(tCtx ktesting.TContext, variant string) error {
	wa, ost, pre := c.windowsAware.Load(), c.osTaintToleration.Load(), c.preemption.Load()
	tCtx.Logf("variant %s: %s built %d times, %s %d times, %s %d times", variant,
		windowsaware.Name, wa, ostainttoleration.Name, ost, windowsawarepreemption.Name, pre)
	if want := variant == WindowsAware; (wa > 0) != want || (ost > 0) != want || (pre > 0) != want {
		return fmt.Errorf("variant %s: the scheduler built %s %d times, %s %d times and %s %d times", variant,
			windowsaware.Name, wa, ostainttoleration.Name, ost, windowsawarepreemption.Name, pre)
	}
	return nil
}
