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

package kubectlcmd

import "fmt"

// Exit statuses: a conflict, or a pod that no node of the cluster runs, is
// a finding, as a linter's is, told apart from an input that could not be
// read.
const (
	ExitError   = 1
	ExitFinding = 2
)

// ExitCodeError ends a command with a status other than 1; main prints nothing
// more for it than the command did.
type ExitCodeError struct {
	Code int
}

func (e *ExitCodeError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }
