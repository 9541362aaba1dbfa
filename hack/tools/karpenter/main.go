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

// Command karpenter-kwok is Karpenter's kwok cloud provider
// (sigs.k8s.io/karpenter/kwok) as the autoscaler integration test runs it
// against a control plane on 127.0.0.1: the same cloud provider and
// controllers, started by an operator that opens no listening socket
// (upstream's binds its metrics and health endpoints on every interface)
// and runs without leader election. hack/build-tools.sh builds it into
// bin/tools/karpenter-kwok.
//
// Usage: karpenter-kwok --kubeconfig=PATH [Karpenter's flags]
//
// Every flag but --kubeconfig is Karpenter's own (--batch-max-duration,
// --instance-types-file-path, --log-level, ...), as are their environment
// variables.
package main

import (
	"fmt"
	"os"
	"strings"
)

func main() {
	kubeconfig, rest, err := splitKubeconfig(os.Args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "karpenter-kwok: %v\n", err)
		os.Exit(2)
	}
	// Karpenter parses os.Args itself and rejects flags it does not know.
	os.Args = append([]string{os.Args[0]}, rest...)
	if err := run(kubeconfig); err != nil {
		fmt.Fprintf(os.Stderr, "karpenter-kwok: %v\n", err)
		os.Exit(1)
	}
}

// splitKubeconfig takes --kubeconfig=PATH (or --kubeconfig PATH) out of
// args and returns the path and the other arguments.
func splitKubeconfig(args []string) (string, []string, error) {
	var path string
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--kubeconfig" || a == "-kubeconfig":
			if i+1 == len(args) {
				return "", nil, fmt.Errorf("%s needs a value", a)
			}
			path = args[i+1]
			i++
		case strings.HasPrefix(a, "--kubeconfig=") || strings.HasPrefix(a, "-kubeconfig="):
			path = a[strings.IndexByte(a, '=')+1:]
		default:
			rest = append(rest, a)
		}
	}
	if path == "" {
		return "", nil, fmt.Errorf("--kubeconfig is required")
	}
	return path, rest, nil
}
