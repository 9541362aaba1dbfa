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

// Command demo runs make demo and make demo-down (through hack/demo.sh).
//
// demo up starts, on 127.0.0.1, etcd, kube-apiserver, demo-controllers
// (kube-controller-manager's Deployment, ReplicaSet, ServiceAccount,
// namespace and garbage-collector controllers), kwok and this project's
// scheduler (with the
// shipped manifests/scheduler-config.yaml), registers 5,000 simulated kwok
// nodes (Linux, and Windows Server 2019, 2022 and 2025 pools tainted
// os=windows:NoSchedule), applies the Windows guide's workloads under the
// stock default-scheduler, the same workloads under windows-aware, and
// under default-scheduler without their selectors, plus ordinary Linux
// workloads and a third party's charts as they come, and waits for them.
// It then starts the admission webhook (bin/admission) on 127.0.0.1,
// registers it as the chart does with the cluster-wide opt-in, template
// mode and warnings on, applies the third party's charts again, and a
// workload no pool runs, with kubectl, and prints where each workload
// landed, what the webhook wrote and what kubectl printed. Everything runs
// in the background, with its pid recorded in .demo/pids; the kubeconfig
// is .demo/kubeconfig.
//
// demo down stops every process demo up recorded, by pid.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/windows-aware/windows-aware/internal/controlplane"
	"github.com/windows-aware/windows-aware/internal/localproc"
)

func main() {
	cmd := "up"
	if len(os.Args) > 1 {
		cmd = os.Args[1]
	}
	root, err := controlplane.RepoRoot()
	if err != nil {
		fatal(err)
	}
	state := filepath.Join(root, ".demo")
	switch cmd {
	case "up":
		cfg := defaultConfig()
		if v := os.Getenv("DEMO_NODES"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 10 {
				fatal(fmt.Errorf("DEMO_NODES=%q: want a number >= 10", v))
			}
			cfg = scaledConfig(n)
		}
		os.Exit(up(root, state, cfg))
	case "down":
		if err := down(state, true); err != nil {
			fatal(err)
		}
	default:
		fmt.Fprintf(os.Stderr, "usage: %s up|down\n", os.Args[0])
		os.Exit(2)
	}
}

func fatal(err error) {
	fmt.Fprintf(os.Stderr, "[demo] error: %v\n", err)
	os.Exit(1)
}

var start = time.Now()

func logf(format string, args ...any) {
	fmt.Printf("[demo %6.1fs] %s\n", time.Since(start).Seconds(), fmt.Sprintf(format, args...))
}

// down stops what a previous demo up recorded in state/pids and removes
// the cluster's data, keeping the logs.
func down(state string, verbose bool) error {
	say := func(format string, args ...any) {
		if verbose {
			logf(format, args...)
		}
	}
	stopped, err := localproc.StopRecorded(filepath.Join(state, "pids"), 10*time.Second, say)
	if err != nil {
		return err
	}
	if verbose && len(stopped) == 0 {
		logf("no demo running")
	}
	entries, _ := os.ReadDir(state)
	for _, e := range entries {
		if e.Name() != "logs" {
			_ = os.RemoveAll(filepath.Join(state, e.Name()))
		}
	}
	if verbose && len(stopped) > 0 {
		logf("stopped %d processes; logs kept in %s", len(stopped), filepath.Join(state, "logs"))
	}
	return nil
}

// up returns the exit code of make demo.
func up(root, state string, cfg config) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()

	if _, err := os.Stat(filepath.Join(state, "pids")); err == nil {
		logf("stopping the previous demo")
		if err := down(state, true); err != nil {
			fatal(err)
		}
	}
	_ = os.RemoveAll(state)
	if err := os.MkdirAll(state, 0o755); err != nil {
		fatal(err)
	}

	logf("starting a private registry on 127.0.0.1 with images whose tags name no Windows build")
	reg, schedulerConfig, err := startRegistry(ctx, root, state)
	if err != nil {
		return failed(ctx, nil, state, err)
	}
	for _, img := range reg.Images {
		logf("  %s: built on %s", img.Reference, describeBuilds(img))
	}
	logf("starting the control plane on 127.0.0.1 (state in %s)", state)
	c, err := controlplane.Start(ctx, controlplane.Options{
		SchedulerConfig: schedulerConfig,
		Dir:             state,
		PIDDir:          filepath.Join(state, "pids"),
		Detach:          true,
		DemoControllers: true,
		Kwok:            true,
		Schedulers:      1,
		Logf:            logf,
	})
	if err != nil {
		return failed(ctx, nil, state, err)
	}
	d := &demo{c: c, cfg: cfg, root: root, registry: reg, schedulerConfig: schedulerConfig}
	if err := d.run(ctx); err != nil {
		return failed(ctx, c, state, err)
	}
	stop()

	fmt.Printf(`
The cluster keeps running in the background (pids in .demo/pids, logs in .demo/logs).
Look around with the kubectl built into bin/tools:

  export KUBECONFIG=$PWD/.demo/kubeconfig
  bin/tools/kubectl get pods -A -o wide
  bin/tools/kubectl get nodes -L node.kubernetes.io/windows-build --sort-by=.metadata.name | tail
  bin/tools/kubectl get events -A --field-selector reason=FailedScheduling

Stop everything with: make demo-down
`)
	return 0
}

// failed stops whatever runs and returns the exit code: 130 when
// interrupted.
func failed(ctx context.Context, c *controlplane.Cluster, state string, err error) int {
	interrupted := ctx.Err() != nil
	if interrupted {
		logf("interrupted: stopping everything")
	} else {
		logf("error: %v", err)
		logf("stopping everything (logs in %s)", filepath.Join(state, "logs"))
	}
	if c != nil {
		c.Stop()
	}
	_ = down(state, false)
	if interrupted || errors.Is(err, context.Canceled) {
		return 130
	}
	return 1
}
