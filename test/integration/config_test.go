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
	"os"
	"path/filepath"
	"testing"

	"github.com/windows-aware/windows-aware/internal/controlplane"
)

// TestSchedulersRunTheShippedConfig: the configuration the schedulers run
// with is manifests/scheduler-config.yaml with only the kubeconfig line
// changed. Without a cluster it checks the rewrite alone.
func TestSchedulersRunTheShippedConfig(t *testing.T) {
	root, err := controlplane.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	shipped, err := os.ReadFile(filepath.Join(root, controlplane.ShippedSchedulerConfig))
	if err != nil {
		t.Fatal(err)
	}
	var got []byte
	kubeconfig := "/tmp/some dir/scheduler.kubeconfig"
	if skipReason == "" {
		e := requireCluster(t)
		if got, err = os.ReadFile(e.c.SchedulerConfigFile); err != nil {
			t.Fatal(err)
		}
		kubeconfig = e.c.SchedulerKubeconfig
	} else if got, err = controlplane.RewriteKubeconfig(shipped, kubeconfig); err != nil {
		t.Fatal(err)
	}
	a, b := bytes.Split(shipped, []byte("\n")), bytes.Split(got, []byte("\n"))
	if len(a) != len(b) {
		t.Fatalf("the run configuration has %d lines, the shipped one %d", len(b), len(a))
	}
	changed := 0
	for i := range a {
		if bytes.Equal(a[i], b[i]) {
			continue
		}
		changed++
		if !bytes.Contains(a[i], []byte("kubeconfig:")) || !bytes.Contains(b[i], []byte(kubeconfig)) {
			t.Errorf("line %d changed: %q -> %q", i+1, a[i], b[i])
		}
	}
	if changed != 1 {
		t.Errorf("%d lines changed, want 1 (clientConnection.kubeconfig)", changed)
	}
}

func TestRewriteKubeconfigRejectsConfigsWithoutOne(t *testing.T) {
	for _, cfg := range []string{
		"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n",
		"clientConnection:\n  qps: 50\nkubeconfig: /x\n",
		"clientConnection:\n  kubeconfig: /a\n  kubeconfig: /b\n",
	} {
		if _, err := controlplane.RewriteKubeconfig([]byte(cfg), "/k"); err == nil {
			t.Errorf("RewriteKubeconfig(%q) succeeded, want an error", cfg)
		}
	}
	out, err := controlplane.RewriteKubeconfig([]byte("a: 1\nclientConnection:\n  # note\n  kubeconfig: /etc/x.conf\n  qps: 5\n"), "/k y")
	if err != nil {
		t.Fatal(err)
	}
	if want := "a: 1\nclientConnection:\n  # note\n  kubeconfig: \"/k y\"\n  qps: 5\n"; string(out) != want {
		t.Errorf("got %q, want %q", out, want)
	}
}
