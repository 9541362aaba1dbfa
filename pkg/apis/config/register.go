package config

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
)

// SchemeGroupVersion is the internal version of the kube-scheduler
// configuration group, which these args join.
var SchemeGroupVersion = schema.GroupVersion{Group: schedconfig.GroupName, Version: runtime.APIVersionInternal}

var (
	// localSchemeBuilder is the kube-scheduler's own, so that the scheme the
	// scheduler converts plugin args with knows these types too.
	localSchemeBuilder = &schedconfig.SchemeBuilder
	// AddToScheme registers the internal types in a scheme.
	AddToScheme = localSchemeBuilder.AddToScheme
)

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion, &WindowsAwareArgs{})
	return nil
}

func init() {
	localSchemeBuilder.Register(addKnownTypes)
}
