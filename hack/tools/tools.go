//go:build tools

// Package tools pins the binaries hack/build-tools.sh builds into bin/tools:
// the control plane of the integration tests and of make demo. The product
// module (the repository root) does not depend on any of them.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
