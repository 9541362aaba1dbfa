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

// Package helmtest finds the helm that the tests which render the chart
// run.
package helmtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/windows-aware/windows-aware/internal/controlplane"
)

// RequireEnv, when set, turns a missing helm into a failure: make
// verify-chart sets it, so that CI cannot pass by skipping.
const RequireEnv = "WINDOWS_AWARE_REQUIRE_HELM"

// Binary returns the helm to run: $HELM, else bin/tools/helm of the
// repository (hack/build-tools.sh helm), else helm on $PATH. Without one
// the test is skipped, unless RequireEnv is set; why ends the message
// that says so, after "run `hack/build-tools.sh helm`".
func Binary(t testing.TB, why string) string {
	t.Helper()
	if h := os.Getenv("HELM"); h != "" {
		return h
	}
	if root, err := controlplane.RepoRoot(); err == nil {
		h := filepath.Join(root, "bin", "tools", "helm")
		if st, err := os.Stat(h); err == nil && !st.IsDir() {
			return h
		}
	}
	if h, err := exec.LookPath("helm"); err == nil {
		return h
	}
	msg := "helm is not built: run `hack/build-tools.sh helm` " + why
	if os.Getenv(RequireEnv) != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}
