package v1

import (
	corev1 "k8s.io/api/core/v1"
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
}
