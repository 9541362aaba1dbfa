// +k8s:deepcopy-gen=package
// +k8s:conversion-gen=github.com/windows-aware/windows-aware/pkg/apis/config
// +k8s:defaulter-gen=TypeMeta
// +groupName=kubescheduler.config.k8s.io

// Package v1 is the versioned form of the windows-aware plugin args, as they
// are written in a KubeSchedulerConfiguration (apiVersion
// kubescheduler.config.k8s.io/v1, kind WindowsAwareArgs).
package v1
