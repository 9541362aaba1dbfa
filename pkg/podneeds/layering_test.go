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

package podneeds_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLayering: the decision imports no scheduler and no client, and the
// programs that share it with the scheduler (publish mode's webhook and
// gate controller, the warnings webhook, explain) reach it without a
// scheduler plugin, so that none of them can decide by a rule of its own;
// nor does the kubectl plugin, and no plugin imports a webhook.
// OSTaintToleration reads WindowsAware's decision without importing it.
// BindGuard's room rule, noderoom, stands alone. The programs share names
// (labels, annotations, the gate, Event reasons) through the leaf
// wellknown, not by importing one another.
func TestLayering(t *testing.T) {
	const module = "github.com/windows-aware/windows-aware/"
	tests := []struct {
		pkg       string
		forbidden []string
	}{
		{"./", []string{"k8s.io/kubernetes/pkg/scheduler", "k8s.io/kube-scheduler", "k8s.io/client-go/kubernetes", module + "pkg/plugins"}},
		{"../imagefacts", []string{"k8s.io/kubernetes/pkg/scheduler", "k8s.io/kube-scheduler", module + "pkg/plugins"}},
		// The publish webhook's /mutate/warnings reads the warnings
		// through publish.PodWarner: neither webhook imports the other.
		{"../publish", []string{module + "pkg/plugins", module + "pkg/explain", module + "pkg/warnings"}},
		{"../warnings", []string{module + "pkg/plugins", module + "pkg/explain", module + "pkg/kubectlcmd", module + "pkg/publish"}},
		{"../plugins/...", []string{module + "pkg/warnings", module + "pkg/publish"}},
		// explain reads publish mode's record, gate and labels through
		// wellknown, not the webhook.
		{"../explain", []string{module + "pkg/plugins", module + "pkg/publish", module + "pkg/ungate"}},
		{"../ungate", []string{module + "pkg/plugins", module + "pkg/explain"}},
		// The webhooks and the gate remover read the scheduler's
		// configuration through schedprofile, not the kubectl reports.
		{"../../cmd/admission", []string{module + "pkg/plugins", module + "pkg/explain", module + "pkg/kubectlcmd"}},
		// The test control plane publishes the chart's ConfigMap by its
		// labels, without the kubectl plugin.
		// The args' validation reads registry names through registryhost,
		// not the resolver.
		{"../apis/config/validation", []string{module + "pkg/imageinspect"}},
		{"../registryhost", []string{module + "pkg/"}},
		{"../../internal/controlplane", []string{module + "pkg/kubectlcmd", module + "pkg/explain"}},
		{"../schedprofile", []string{module + "pkg/explain", module + "pkg/kubectlcmd", module + "pkg/publish", module + "pkg/plugins"}},
		// The kubectl plugin reads the gate remover's Event reasons
		// through wellknown, not the remover.
		{"../kubectlcmd", []string{module + "pkg/plugins", module + "pkg/ungate"}},
		{"../../cmd/kubectl-windows_aware", []string{module + "pkg/plugins"}},
		// The scheduler's plugins name the other programs' labels, gate
		// and Events through wellknown, never by importing them.
		{"../plugins/...", []string{module + "pkg/publish", module + "pkg/ungate", module + "pkg/kubectlcmd", module + "pkg/explain"}},
		// Every program names through wellknown, so it imports nothing of
		// the project.
		{"../wellknown", []string{module}},
		// OSTaintToleration reads WindowsAware's decision through osmatch.
		{"../plugins/ostainttoleration", []string{module + "pkg/plugins/windowsaware"}},
		{"../nodeclasses", []string{"k8s.io/kubernetes/pkg/scheduler", "k8s.io/kube-scheduler", module + "pkg/plugins"}},
		// The room rule BindGuard asks is readable alone, with no
		// scheduler and no client.
		{"../noderoom", []string{"k8s.io/kubernetes/pkg/scheduler", "k8s.io/kube-scheduler", "k8s.io/client-go", module + "pkg/"}},
	}
	for _, tt := range tests {
		t.Run(tt.pkg, func(t *testing.T) {
			// The packages tt.pkg names are not their own dependencies:
			// a forbidden prefix may hold them.
			out, err := exec.Command("go", "list", "-deps", "-f", "{{if .DepOnly}}{{.ImportPath}}{{end}}", tt.pkg).Output()
			if err != nil {
				t.Fatalf("go list -deps %s: %v", tt.pkg, err)
			}
			for _, dep := range strings.Fields(string(out)) {
				for _, f := range tt.forbidden {
					// A forbidden path is that package and those under
					// it; one that ends in / (module + "pkg/") those
					// under it alone.
					if dep == f || strings.HasPrefix(dep, strings.TrimSuffix(f, "/")+"/") {
						t.Errorf("%s imports %s", tt.pkg, dep)
					}
				}
			}
		})
	}
}
