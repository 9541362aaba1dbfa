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

package app

import (
	"maps"
	"slices"

	schedulerapp "k8s.io/kubernetes/cmd/kube-scheduler/app"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"

	// WindowsAwareArgs in the config scheme: without it, a configuration
	// that names the plugin's args does not decode.
	_ "github.com/windows-aware/windows-aware/pkg/apis/config/scheme"
	"github.com/windows-aware/windows-aware/pkg/plugins/bindguard"
	"github.com/windows-aware/windows-aware/pkg/plugins/ostainttoleration"
	"github.com/windows-aware/windows-aware/pkg/plugins/windowsaware"
	"github.com/windows-aware/windows-aware/pkg/plugins/windowsawarepreemption"
)

// Registry is the out-of-tree plugins by name: the one list the binary
// (Plugins) and the benchmarks' scheduler register.
func Registry() frameworkruntime.Registry {
	return frameworkruntime.Registry{
		windowsaware.Name:           windowsaware.New,
		ostainttoleration.Name:      ostainttoleration.New,
		windowsawarepreemption.Name: windowsawarepreemption.New,
		bindguard.Name:              bindguard.New,
	}
}

// Plugins registers Registry's plugins beside the in-tree ones, for
// upstream's app.NewSchedulerCommand or app.Setup.
func Plugins() []schedulerapp.Option {
	r := Registry()
	var opts []schedulerapp.Option
	for _, name := range slices.Sorted(maps.Keys(r)) {
		opts = append(opts, schedulerapp.WithPlugin(name, r[name]))
	}
	return opts
}
