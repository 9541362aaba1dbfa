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

package explain

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
)

// pooled is node with a pool label.
func pooled(name, pool, os, build string, taints ...v1.Taint) *v1.Node {
	n := node(name, os, build, taints...)
	n.Labels["kubernetes.azure.com/agentpool"] = pool
	return n
}

// TestFixes: when no node runs a pod, explain names the pools and says
// what to change, by what kept the pod off them.
func TestFixes(t *testing.T) {
	osTaint := v1.Taint{Key: "os", Value: "windows", Effect: v1.TaintEffectNoSchedule}
	gpuTaint := v1.Taint{Key: "dedicated", Value: "gpu", Effect: v1.TaintEffectNoSchedule}
	nodes := []runtime.Object{
		pooled("l1", "system", "linux", ""),
		pooled("w1", "win22", "windows", "10.0.20348", osTaint),
		pooled("w2", "win22", "windows", "10.0.20348", osTaint),
		pooled("g1", "wingpu", "windows", "10.0.26100", osTaint, gpuTaint),
		pooled("b1", "winbad", "windows", "banana", osTaint),
	}
	pod := func(spec string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  schedulerName: windows-aware\n" + spec
	}
	tests := []struct {
		name      string
		input     string
		wantPools []string // in the group lines
		wantFixes []string // substrings, one a fix
	}{{
		name:      "no pool of the image's build: add one, or retag for what the cluster runs",
		input:     pod("  containers: [{name: c, image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019}]\n"),
		wantPools: []string{"system", "win22", "wingpu", "winbad"},
		wantFixes: []string{
			`pool winbad: the label node.kubernetes.io/windows-build="banana" is not a Windows build`,
			"no node runs 10.0.17763 (ltsc2019): add a Windows Server 2019 pool, or retag the image for ltsc2022 or ltsc2025",
		},
	}, {
		name:      "the pod's own selector excludes the nodes that run it",
		input:     pod("  nodeSelector: {kubernetes.azure.com/agentpool: system}\n  containers: [{name: c, image: mcr.microsoft.com/windows/nanoserver:ltsc2022}]\n"),
		wantFixes: []string{`pool winbad`, "the pod's own nodeSelector or required node affinity excludes every node that runs it (pool win22, pool wingpu)"},
	}, {
		name:      "a taint the pod does not tolerate",
		input:     pod("  containers: [{name: c, image: mcr.microsoft.com/windows/nanoserver:ltsc2025}]\n"),
		wantFixes: []string{`pool winbad`, "every node that runs it (pool wingpu) has a taint the pod does not tolerate (dedicated=gpu:NoSchedule)"},
	}, {
		name:      "a conflict: what to change in the pod",
		input:     pod("  os: {name: linux}\n  containers: [{name: c, image: mcr.microsoft.com/windows/nanoserver:ltsc2022}]\n"),
		wantFixes: []string{"make the pod's OS"},
	}, {
		name:  "a pod that runs: no fix",
		input: pod("  containers: [{name: c, image: mcr.microsoft.com/windows/nanoserver:ltsc2022}]\n"),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "pod.yaml")
			if err := os.WriteFile(file, []byte(tt.input), 0o600); err != nil {
				t.Fatal(err)
			}
			r := explainFiles(t, &Cluster{Client: fake.NewClientset(nodes...), Namespace: "default"}, file)
			tr := r.Templates[0]
			if len(tr.Fixes) != len(tt.wantFixes) {
				t.Fatalf("fixes %q, want %d: %q", tr.Fixes, len(tt.wantFixes), tt.wantFixes)
			}
			for i, want := range tt.wantFixes {
				if !strings.Contains(tr.Fixes[i], want) {
					t.Errorf("fix %d = %q, want it to say %q", i, tr.Fixes[i], want)
				}
			}
			if tt.wantPools != nil {
				var pools []string
				for _, g := range tr.Nodes.Groups {
					pools = append(pools, g.Pool)
				}
				if strings.Join(pools, ",") != strings.Join(tt.wantPools, ",") {
					t.Errorf("groups of pools %q, want %q", pools, tt.wantPools)
				}
			}
			if wantNoNode := len(tt.wantFixes) > 0 && tr.Conflict == nil; (r.NoNode == 1) != wantNoNode {
				t.Errorf("NoNode = %d, want it counted: %v", r.NoNode, wantNoNode)
			}
		})
	}
}
