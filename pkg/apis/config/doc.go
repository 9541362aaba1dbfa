// +k8s:deepcopy-gen=package

// Package config holds the internal types of the windows-aware plugins'
// arguments, registered in the kube-scheduler configuration API group
// (kubescheduler.config.k8s.io) beside the in-tree plugins' args.
package config
