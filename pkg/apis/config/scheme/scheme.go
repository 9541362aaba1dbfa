// Package scheme registers the windows-aware args in the kube-scheduler's
// own scheme, so that a KubeSchedulerConfiguration that configures them
// decodes, defaults and converts like one that configures in-tree plugins.
package scheme

import (
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	kubeschedulerscheme "k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	configv1 "github.com/windows-aware/windows-aware/pkg/apis/config/v1"
)

// Scheme is the kube-scheduler's scheme, with the windows-aware types added.
var Scheme = kubeschedulerscheme.Scheme

func init() {
	AddToScheme(Scheme)
}

// AddToScheme adds the internal and v1 windows-aware types to scheme.
func AddToScheme(scheme *runtime.Scheme) {
	utilruntime.Must(config.AddToScheme(scheme))
	utilruntime.Must(configv1.AddToScheme(scheme))
}
