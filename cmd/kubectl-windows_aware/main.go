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

// Command kubectl-windows_aware is the kubectl plugin kubectl windows-aware:
// where the windows-aware scheduler places pods, and why. kubectl finds it
// on $PATH by its name.
package main

import (
	"errors"
	"fmt"
	"os"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/windows-aware/windows-aware/pkg/kubectlcmd"
	"github.com/windows-aware/windows-aware/pkg/safetext"
)

func main() {
	cmd := kubectlcmd.NewCommand(genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr})
	if err := cmd.Execute(); err != nil {
		var exit *kubectlcmd.ExitCodeError
		if errors.As(err, &exit) {
			os.Exit(exit.Code)
		}
		fmt.Fprintf(os.Stderr, "error: %s\n", safetext.Text(err.Error()))
		os.Exit(kubectlcmd.ExitError)
	}
}
