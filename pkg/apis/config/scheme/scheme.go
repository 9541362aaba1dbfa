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

// Package scheme registers the windows-aware args in the kube-scheduler's
// own scheme, so that a KubeSchedulerConfiguration that configures them
// decodes, defaults and converts like one that configures in-tree plugins.
package scheme

import (
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	kubeschedulerscheme "k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	configv1 "github.com/windows-aware/windows-aware/pkg/apis/config/v1"
)

// Scheme is the kube-scheduler's scheme, with the windows-aware types added.
var Scheme = kubeschedulerscheme.Scheme

func init() {
	// The scheduler converts plugin args in a scheme of its own, built
	// from its SchemeBuilder at first use: the internal types join that
	// builder here (package config imports nothing of the scheduler).
	schedconfig.SchemeBuilder.Register(config.AddToScheme)
	AddToScheme(Scheme)
}

// AddToScheme adds the internal and v1 windows-aware types to scheme.
func AddToScheme(scheme *runtime.Scheme) {
	utilruntime.Must(config.AddToScheme(scheme))
	utilruntime.Must(configv1.AddToScheme(scheme))
}
