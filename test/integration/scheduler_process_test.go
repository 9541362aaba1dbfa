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
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/windows-aware/windows-aware/internal/localproc"
)

// runScheduler runs the scheduler binary as name, with profiles, its
// configuration written in dir, talking to the API server through
// kubeconfig, without leader election; see runSchedulerConfig.
func (e *env) runScheduler(name, dir, kubeconfig, profiles string) *localproc.Process {
	e.t.Helper()
	return e.runSchedulerConfig(name, e.writeSchedulerConfig(dir, kubeconfig, profiles))
}

// writeSchedulerConfig writes a scheduler configuration of profiles,
// talking to the API server through kubeconfig, without leader election,
// into dir, and returns its path.
func (e *env) writeSchedulerConfig(dir, kubeconfig, profiles string) string {
	e.t.Helper()
	cfg := fmt.Sprintf(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: %s
leaderElection:
  leaderElect: false
profiles:
%s`, strconv.Quote(kubeconfig), profiles)
	cfgFile := filepath.Join(dir, "scheduler-config.yaml")
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o600); err != nil {
		e.t.Fatal(err)
	}
	return cfgFile
}

// runSchedulerConfig runs the scheduler binary as name with the
// configuration cfgFile. It is stopped when the test ends, with its log's
// end if the test failed or the scheduler exited. The delegated
// authentication and authorization let a test read its /metrics as the
// cluster admin.
func (e *env) runSchedulerConfig(name, cfgFile string) *localproc.Process {
	e.t.Helper()
	port, err := localproc.FreePort()
	if err != nil {
		e.t.Fatal(err)
	}
	p, err := e.c.Run(e.ctx, name, e.c.Binaries.Scheduler,
		[]string{"--config=" + cfgFile, "--bind-address=127.0.0.1", "--secure-port=" + strconv.Itoa(port), "-v=2",
			"--authentication-kubeconfig=" + e.c.SchedulerKubeconfig, "--authorization-kubeconfig=" + e.c.SchedulerKubeconfig},
		fmt.Sprintf("https://127.0.0.1:%d/healthz", port))
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		if p.Exited() {
			e.t.Errorf("the scheduler %s exited; log %s:\n%s", name, p.LogFile, p.Tail(3000))
		}
		if e.t.Failed() {
			e.t.Logf("%s log ends with:\n%s", name, p.Tail(6000))
		}
		p.Stop(10 * time.Second)
	})
	return p
}

// windowsAwareProfile is the shipped windows-aware profile under another
// name, with preemption (WindowsAwarePreemption, or upstream's
// DefaultPreemption) and WindowsAware's args.
func windowsAwareProfile(name, preemption string, args map[string]any) string {
	disabled := ""
	if preemption != "DefaultPreemption" {
		disabled = `
        disabled:
          - name: DefaultPreemption`
	}
	return fmt.Sprintf(`  - schedulerName: %s
    plugins:
      multiPoint:
        enabled:
          - name: %s
          - name: WindowsAware
            weight: 5
          - name: OSTaintToleration%s
      preFilter:
        enabled:
          - name: WindowsAware
      filter:
        enabled:
          - name: WindowsAware
          - name: OSTaintToleration
        disabled:
          - name: TaintToleration
    pluginConfig:
      - name: WindowsAware
        args: %s
`, name, preemption, disabled, jsonArgs(args))
}

// jsonArgs writes a plugin's args as JSON, which YAML reads.
func jsonArgs(args map[string]any) string {
	out, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	return string(out)
}
