// Package integration holds the integration tests of the windows-aware
// scheduler: this project's scheduler binary, run with the shipped
// manifests/scheduler-config.yaml, against a real kube-apiserver and etcd
// started by package test/cluster. Run them with make test-integration.
package integration
