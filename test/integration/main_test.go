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
	"context"
	"flag"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/windows-aware/windows-aware/internal/controlplane"
)

// The control plane every test shares: etcd, kube-apiserver and two
// scheduler processes running the shipped configuration (leader election
// on), started by the first test that needs it and stopped by TestMain.
var (
	shared     *controlplane.Cluster
	sharedErr  error
	sharedOnce sync.Once
	// skipReason is set when the tools are missing outside CI.
	skipReason string
)

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(run(m))
}

func run(m *testing.M) int {
	_, err := controlplane.FindBinaries("", "", controlplane.Etcd, controlplane.KubeAPIServer, controlplane.Scheduler)
	if err != nil {
		if !controlplane.IsMissing(err) || os.Getenv("CI") == "true" {
			fmt.Fprintf(os.Stderr, "FAIL: integration tests cannot run: %v\n", err)
			return 1
		}
		skipReason = fmt.Sprintf("integration tests need a real control plane: %v (outside CI, tests that need it are skipped; in CI, with CI=true, this is a failure)", err)
		fmt.Fprintf(os.Stderr, "SKIP: %s\n", skipReason)
	}
	code := m.Run()
	if shared != nil {
		if code != 0 {
			shared.Fail()
			fmt.Fprintf(os.Stderr, "cluster logs kept in %s\n", shared.LogDir)
		}
		shared.Stop()
	}
	return code
}

// env is what a test gets from requireCluster.
type env struct {
	t      *testing.T
	c      *controlplane.Cluster
	client kubernetes.Interface
	ctx    context.Context
}

// requireCluster returns the shared control plane, starting it on first
// use, with a scheduler leading. It skips the test when the tools are
// missing outside CI.
func requireCluster(t *testing.T) *env {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
	sharedOnce.Do(func() {
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		shared, sharedErr = controlplane.Start(ctx, controlplane.Options{
			Schedulers:    2,
			SchedulerArgs: []string{"-v=2"},
			Logf: func(format string, args ...any) {
				fmt.Fprintf(os.Stderr, "[cluster %6.1fs] %s\n", time.Since(start).Seconds(), fmt.Sprintf(format, args...))
			},
		})
		if sharedErr == nil {
			_, sharedErr = waitLeader(ctx, shared, "")
		}
		if sharedErr == nil {
			fmt.Fprintf(os.Stderr, "[cluster %6.1fs] control plane up, a scheduler leads; logs in %s\n", time.Since(start).Seconds(), shared.LogDir)
		}
	})
	if sharedErr != nil {
		t.Fatalf("starting the control plane: %v", sharedErr)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return &env{t: t, c: shared, client: shared.Client, ctx: ctx}
}

// waitLeader waits until the scheduler lease has a holder other than
// notHolder and returns it.
func waitLeader(ctx context.Context, c *controlplane.Cluster, notHolder string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	for {
		lease, err := getSchedulerLease(ctx, c.Client)
		if err == nil && lease.Spec.HolderIdentity != nil && *lease.Spec.HolderIdentity != "" && *lease.Spec.HolderIdentity != notHolder {
			return *lease.Spec.HolderIdentity, nil
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("no scheduler took the lease kube-system/kube-scheduler: %w", ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func getSchedulerLease(ctx context.Context, client kubernetes.Interface) (*coordinationv1.Lease, error) {
	return client.CoordinationV1().Leases("kube-system").Get(ctx, "kube-scheduler", metav1.GetOptions{})
}
