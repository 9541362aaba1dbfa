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

package v1

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// The defaults of WindowsAwareArgs.
var (
	DefaultOS                = "linux"
	DefaultCompatibilityMode = "containerd"
	// DefaultOSTaintKeys are the taint keys Windows nodes carry in the
	// Kubernetes documentation (os=windows) and on clusters that follow the
	// node.kubernetes.io prefix (node.kubernetes.io/os=windows).
	DefaultOSTaintKeys    = []string{"os", "node.kubernetes.io/os"}
	DefaultOSTaintEffects = []corev1.TaintEffect{corev1.TaintEffectNoSchedule}
)

// The defaults of WindowsAwareArgs.ImageResolution.
var (
	DefaultResolutionScope       = "None"
	DefaultResolutionOnFailure   = "TagRules"
	DefaultResolutionGateTimeout = 10 * time.Second
	DefaultResolutionMaxEntries  = int32(20000)
	DefaultResolutionTagTTL      = 10 * time.Minute
	DefaultResolutionNegativeTTL = time.Minute
	DefaultResolutionWorkers     = int32(8)
	DefaultResolutionPerRegistry = int32(4)
	DefaultResolutionRequest     = 10 * time.Second
	// DefaultResolutionMaxIndexEntries is far above real multi-platform
	// lists (well under 100 entries, attestations included) and far below
	// what a 4 MiB index can hold.
	DefaultResolutionMaxIndexEntries = int32(256)
)

// SetDefaults_WindowsAwareArgs fills the fields a configuration leaves out.
func SetDefaults_WindowsAwareArgs(obj *WindowsAwareArgs) {
	if obj.DefaultOS == nil {
		obj.DefaultOS = ptr.To(DefaultOS)
	}
	if obj.CompatibilityMode == nil {
		obj.CompatibilityMode = ptr.To(DefaultCompatibilityMode)
	}
	if obj.OSTaints == nil {
		obj.OSTaints = &OSTaints{}
	}
	if obj.OSTaints.Tolerate == nil {
		obj.OSTaints.Tolerate = ptr.To(true)
	}
	if obj.OSTaints.Keys == nil {
		obj.OSTaints.Keys = append([]string(nil), DefaultOSTaintKeys...)
	}
	if obj.OSTaints.Effects == nil {
		obj.OSTaints.Effects = append([]corev1.TaintEffect(nil), DefaultOSTaintEffects...)
	}
	if obj.ImageResolution == nil {
		obj.ImageResolution = &ImageResolution{}
	}
	setDefaultsImageResolution(obj.ImageResolution)
}

func setDefaultsImageResolution(r *ImageResolution) {
	defaultDuration := func(d **metav1.Duration, v time.Duration) {
		if *d == nil {
			*d = &metav1.Duration{Duration: v}
		}
	}
	if r.Scope == nil {
		r.Scope = ptr.To(DefaultResolutionScope)
	}
	if r.OnFailure == nil {
		r.OnFailure = ptr.To(DefaultResolutionOnFailure)
	}
	defaultDuration(&r.GateTimeout, DefaultResolutionGateTimeout)
	defaultDuration(&r.RequestTimeout, DefaultResolutionRequest)
	defaultDuration(&r.Cache.TagTTL, DefaultResolutionTagTTL)
	defaultDuration(&r.Cache.NegativeTTL, DefaultResolutionNegativeTTL)
	if r.Credentials.PodPullSecrets == nil {
		r.Credentials.PodPullSecrets = ptr.To(false)
	}
	if r.Cache.MaxEntries == nil {
		r.Cache.MaxEntries = ptr.To(DefaultResolutionMaxEntries)
	}
	if r.Concurrency.Workers == nil {
		r.Concurrency.Workers = ptr.To(DefaultResolutionWorkers)
	}
	if r.Concurrency.PerRegistry == nil {
		r.Concurrency.PerRegistry = ptr.To(DefaultResolutionPerRegistry)
	}
	if r.MaxIndexEntries == nil {
		r.MaxIndexEntries = ptr.To(DefaultResolutionMaxIndexEntries)
	}
}
