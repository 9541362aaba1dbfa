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

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/windows-aware/windows-aware/pkg/explain"
)

// replaceConfig is the shipped configuration of a scheduler that replaces
// the stock one: explain reads its WindowsAware args.
const replaceConfig = "../../manifests/scheduler-config.yaml"

// runExplain runs "scheduler explain args..." as main does, and returns
// its exit status and output.
func runExplain(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	root := newRootCommand()
	var out, errOut bytes.Buffer
	root.SetIn(strings.NewReader(stdin))
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(append([]string{"explain"}, args...))
	exited := 0
	for _, c := range root.Commands() {
		if c.Name() == "explain" {
			root.RemoveCommand(c)
		}
	}
	root.AddCommand(newExplainCommand(func(code int) { exited = code }))
	if err := root.Execute(); err != nil {
		return exitError, out.String(), err.Error()
	}
	return exited, out.String(), errOut.String()
}

const conflictingPod = `apiVersion: v1
kind: Pod
metadata: {name: linux-with-windows-image}
spec:
  schedulerName: windows-aware
  os: {name: linux}
  containers: [{name: c, image: "mcr.microsoft.com/windows/servercore:ltsc2019"}]
`

func TestExplainCommand(t *testing.T) {
	dir := t.TempDir()
	conflicting := filepath.Join(dir, "conflicting.yaml")
	if err := os.WriteFile(conflicting, []byte(conflictingPod), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		stdin      string
		args       []string
		wantCode   int
		wantOut    []string // parts of the output, in order
		wantErrOut string
	}{
		{
			name:     "the examples, with the shipped config",
			args:     []string{"-f", "../../manifests/examples/", "--config", replaceConfig},
			wantCode: 0,
			wantOut: []string{
				"DaemonSet kube-system/windows-node-agent", "any Windows build (HostProcess)",
				"Deployment iis-2019", "needs build 10.0.17763 (ltsc2019), from its tag",
				"Deployment nanoserver-ltsc2022", "10.0.20348 (ltsc2022), 10.0.25398 (23H2), 10.0.26100 (ltsc2025); prefers 10.0.20348",
				"6 pod template(s), 0 with a conflict; profile windows-aware",
			},
		},
		{
			name:     "the seed workloads, which name the stock scheduler",
			args:     []string{"-f", "../../hack/demo/workloads/seed.yaml"},
			wantCode: 0,
			wantOut: []string{
				"Deployment win-webserver", "default-scheduler: the windows-aware profile does not place this pod",
				"Deployment iis-2019", "RuntimeClass windows-2019, nodeSelector merged in",
			},
		},
		{
			name:     "a conflicting pod fails the lint",
			args:     []string{"-f", conflicting},
			wantCode: exitConflict,
			wantOut:  []string{"CONFLICT", "os_vs_image", "0/N nodes are available: pod sets .spec.os.name linux"},
		},
		{
			name:     "standard input, as helm template pipes it",
			stdin:    "# Source: chart/templates/pod.yaml\n" + conflictingPod,
			args:     []string{"-f", "-"},
			wantCode: exitConflict,
			wantOut:  []string{"Pod linux-with-windows-image (-)"},
		},
		{
			name:       "a file that is not there",
			args:       []string{"-f", filepath.Join(dir, "nope.yaml")},
			wantCode:   exitError,
			wantErrOut: "no such file",
		},
		{
			name:       "nothing to explain",
			wantCode:   exitError,
			wantErrOut: "nothing to explain",
		},
		{
			name:       "live objects without a cluster",
			args:       []string{"deployment/web"},
			wantCode:   exitError,
			wantErrOut: "need --kubeconfig",
		},
		{
			name:       "a profile the config does not have",
			args:       []string{"-f", conflicting, "--config", replaceConfig, "--profile", "default-scheduler"},
			wantCode:   exitError,
			wantErrOut: `no profile "default-scheduler" enables WindowsAware`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runExplain(t, tt.stdin, tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, out, errOut)
			}
			rest := out
			for _, part := range tt.wantOut {
				i := strings.Index(rest, part)
				if i < 0 {
					t.Fatalf("output lacks %q (after the parts before it):\n%s", part, out)
				}
				rest = rest[i+len(part):]
			}
			if !strings.Contains(errOut, tt.wantErrOut) {
				t.Errorf("stderr %q, want it to say %q", errOut, tt.wantErrOut)
			}
		})
	}
}

// TestExplainJSON: -o json is the report, for tools.
func TestExplainJSON(t *testing.T) {
	code, out, errOut := runExplain(t, conflictingPod, "-f", "../../manifests/examples/multi-release.yaml", "-f", "-", "-o", "json")
	if code != exitConflict {
		t.Fatalf("exit status %d, want %d; stderr %s", code, exitConflict, errOut)
	}
	var r explain.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if len(r.Templates) != 4 || r.Conflicts != 1 {
		t.Fatalf("%d templates, %d conflicts; want 4 and 1", len(r.Templates), r.Conflicts)
	}
	last := r.Templates[3]
	if last.Conflict == nil || last.Conflict.Kind != "os_vs_image" || last.Source != "-" {
		t.Errorf("last template: %+v, want the pod of standard input, with an os_vs_image conflict", last)
	}
	if first := r.Templates[0]; first.OS != "windows" || first.OSSource != "tag" || first.PreferredBuild != "10.0.20348" {
		t.Errorf("first template: %+v, want windows from the tag, preferring 10.0.20348", first)
	}
}
