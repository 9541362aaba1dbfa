//go:build tools

// Package kwok pins sigs.k8s.io/kwok, which hack/build-tools.sh builds into
// bin/tools/kwok. It is a module of its own because kwok requires an older
// Kubernetes (k8s.io/* v0.36) than the tools module's v1.37 staging
// replaces.
package kwok

import _ "sigs.k8s.io/kwok/cmd/kwok"
