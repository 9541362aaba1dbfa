package v1

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

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
				OSTaints: &OSTaints{Tolerate: ptr.To(true), Keys: []string{"os", "node.kubernetes.io/os"}, Effects: []corev1.TaintEffect{corev1.TaintEffectNoSchedule}},
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
				OSTaints: &OSTaints{Tolerate: ptr.To(false), Keys: []string{"sku"}, Effects: []corev1.TaintEffect{corev1.TaintEffectNoExecute}},
			},
		},
		{
			name: "an explicit empty key list is kept, for validation to refuse",
			in:   &WindowsAwareArgs{OSTaints: &OSTaints{Keys: []string{}}},
			want: &WindowsAwareArgs{
				DefaultOS: ptr.To("linux"), CompatibilityMode: ptr.To("containerd"),
				OSTaints: &OSTaints{Tolerate: ptr.To(true), Keys: []string{}, Effects: []corev1.TaintEffect{corev1.TaintEffectNoSchedule}},
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
