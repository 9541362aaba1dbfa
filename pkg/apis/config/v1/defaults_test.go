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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// defaultResolution is ImageResolution as defaulting fills it.
func defaultResolution() *ImageResolution {
	return &ImageResolution{
		Scope:           ptr.To("None"),
		GateTimeout:     &metav1.Duration{Duration: 10 * time.Second},
		OnFailure:       ptr.To("TagRules"),
		Credentials:     ImageCredentials{PodPullSecrets: ptr.To(false)},
		Cache:           ImageCache{MaxEntries: ptr.To[int32](20000), TagTTL: &metav1.Duration{Duration: 10 * time.Minute}, NegativeTTL: &metav1.Duration{Duration: time.Minute}},
		Concurrency:     ImageConcurrency{Workers: ptr.To[int32](8), PerRegistry: ptr.To[int32](4)},
		RequestTimeout:  &metav1.Duration{Duration: 10 * time.Second},
		MaxIndexEntries: ptr.To[int32](256),
	}
}

func TestSetDefaults(t *testing.T) {
	tests := []struct {
		name string
		in   *WindowsAwareArgs
		want *WindowsAwareArgs
	}{
		{
			name: "empty",
			in:   &WindowsAwareArgs{},
			want: &WindowsAwareArgs{
				DefaultOS: ptr.To("linux"), CompatibilityMode: ptr.To("containerd"),
				OSTaints:        &OSTaints{Tolerate: ptr.To(true), Keys: []string{"os", "node.kubernetes.io/os"}, Effects: []corev1.TaintEffect{corev1.TaintEffectNoSchedule}},
				ImageResolution: defaultResolution(),
			},
		},
		{
			name: "set values are kept",
			in: &WindowsAwareArgs{
				DefaultOS: ptr.To("any"), CompatibilityMode: ptr.To("exact"),
				OSTaints: &OSTaints{Tolerate: ptr.To(false), Keys: []string{"sku"}, Effects: []corev1.TaintEffect{corev1.TaintEffectNoExecute}},
			},
			want: &WindowsAwareArgs{
				DefaultOS: ptr.To("any"), CompatibilityMode: ptr.To("exact"),
				OSTaints:        &OSTaints{Tolerate: ptr.To(false), Keys: []string{"sku"}, Effects: []corev1.TaintEffect{corev1.TaintEffectNoExecute}},
				ImageResolution: defaultResolution(),
			},
		},
		{
			name: "an explicit empty key list is kept, for validation to refuse",
			in:   &WindowsAwareArgs{OSTaints: &OSTaints{Keys: []string{}}},
			want: &WindowsAwareArgs{
				DefaultOS: ptr.To("linux"), CompatibilityMode: ptr.To("containerd"),
				OSTaints:        &OSTaints{Tolerate: ptr.To(true), Keys: []string{}, Effects: []corev1.TaintEffect{corev1.TaintEffectNoSchedule}},
				ImageResolution: defaultResolution(),
			},
		},
		{
			name: "resolution values set are kept",
			in: &WindowsAwareArgs{ImageResolution: &ImageResolution{
				Scope: ptr.To("Windows"), Registries: []RegistryHost{{Host: "*.azurecr.io"}}, OnFailure: ptr.To("Reject"),
				GateTimeout: &metav1.Duration{Duration: time.Second}, Cache: ImageCache{MaxEntries: ptr.To[int32](5)},
				Credentials: ImageCredentials{PodPullSecrets: ptr.To(true), DockerConfigFile: "/etc/registry/config.json"},
			}},
			want: &WindowsAwareArgs{
				DefaultOS: ptr.To("linux"), CompatibilityMode: ptr.To("containerd"),
				OSTaints: &OSTaints{Tolerate: ptr.To(true), Keys: []string{"os", "node.kubernetes.io/os"}, Effects: []corev1.TaintEffect{corev1.TaintEffectNoSchedule}},
				ImageResolution: func() *ImageResolution {
					r := defaultResolution()
					r.Scope, r.Registries, r.OnFailure = ptr.To("Windows"), []RegistryHost{{Host: "*.azurecr.io"}}, ptr.To("Reject")
					r.GateTimeout, r.Cache.MaxEntries = &metav1.Duration{Duration: time.Second}, ptr.To[int32](5)
					r.Credentials = ImageCredentials{PodPullSecrets: ptr.To(true), DockerConfigFile: "/etc/registry/config.json"}
					return r
				}(),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			SetDefaults_WindowsAwareArgs(tt.in)
			if diff := cmp.Diff(tt.want, tt.in); diff != "" {
				t.Errorf("defaults (-want +got):\n%s", diff)
			}
		})
	}
	// The defaults are copies: defaulting one object must not change another.
	a, b := &WindowsAwareArgs{}, &WindowsAwareArgs{}
	SetDefaults_WindowsAwareArgs(a)
	SetDefaults_WindowsAwareArgs(b)
	a.OSTaints.Keys[0] = "changed"
	if b.OSTaints.Keys[0] != "os" || DefaultOSTaintKeys[0] != "os" {
		t.Error("defaulted objects share their key slice")
	}
}
