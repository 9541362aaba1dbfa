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

package integration

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
)

// runAsUser runs bin with args as a user at a workstation would: only
// $KUBECONFIG (kubeconfig) says where the cluster is, and HOME is home (its
// Docker config; no ~/.kube/config). It returns the exit status and both
// outputs; a binary that cannot be started fails the test.
func (e *env) runAsUser(bin, kubeconfig, home string, args ...string) (code int, stdout, stderr string) {
	e.t.Helper()
	cmd := exec.CommandContext(e.ctx, bin, args...)
	cmd.Env = []string{"KUBECONFIG=" + kubeconfig, "HOME=" + home, "PATH=" + os.Getenv("PATH")}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		e.t.Fatal(err)
	}
	return code, out.String(), errOut.String()
}
