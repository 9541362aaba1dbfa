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
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/windows-aware/windows-aware/internal/controlplane"
)

// ownCluster starts a control plane for one test alone (etcd,
// kube-apiserver and one scheduler process with the shipped configuration
// and schedulerArgs), for tests that kill its processes or leave
// thousands of objects behind. It is stopped when the test ends, its logs
// kept if the test failed. Nothing is cleaned up inside it.
func ownCluster(t *testing.T, schedulerArgs ...string) *env {
	t.Helper()
	return ownClusterWith(t, controlplane.Options{Schedulers: 1, SchedulerArgs: schedulerArgs})
}

// ownClusterWith is ownCluster with the control plane opts describe (kwok,
// say); it waits for a scheduler to lead, so opts must start at least one.
func ownClusterWith(t *testing.T, opts controlplane.Options) *env {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	opts.Logf = func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "[%s %6.1fs] %s\n", t.Name(), time.Since(start).Seconds(), fmt.Sprintf(format, args...))
	}
	c, err := controlplane.Start(ctx, opts)
	if err != nil {
		t.Fatalf("starting the control plane: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			c.Fail()
			t.Logf("cluster logs kept in %s", c.LogDir)
		}
		c.Stop()
	})
	testCtx, stop := context.WithCancel(context.Background())
	t.Cleanup(stop) // before Stop: informers end first
	e := &env{t: t, c: c, client: c.Client, ctx: testCtx}
	waitLeaderProcess(t, c)
	t.Logf("own control plane up, scheduler leads, in %s; logs in %s", time.Since(start).Round(100*time.Millisecond), c.LogDir)
	return e
}

// plainNamespace creates a namespace (with its default service account)
// and deletes nothing when the test ends: for ownCluster.
func (e *env) plainNamespace(name string) string {
	e.t.Helper()
	if err := controlplane.CreateNamespace(e.ctx, e.client, name); err != nil {
		e.t.Fatal(err)
	}
	return name
}

// createPodsParallel creates pods on 16 workers and fails the test if any
// cannot be created.
func (e *env) createPodsParallel(ns string, pods []*v1.Pod) {
	e.t.Helper()
	var failed atomic.Int64
	parallel(len(pods), 16, func(i int) {
		if _, err := e.client.CoreV1().Pods(ns).Create(e.ctx, pods[i], metav1.CreateOptions{}); err != nil {
			failed.Add(1)
			e.t.Errorf("creating pod %s: %v", pods[i].Name, err)
		}
	})
	if failed.Load() > 0 {
		e.t.FailNow()
	}
}

// addNodeRetrying creates a node, retrying for up to a minute: right after
// a control plane component restarts, writes may fail for a while.
func (e *env) addNodeRetrying(n *v1.Node) {
	e.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		_, err := e.client.CoreV1().Nodes().Create(e.ctx, n, metav1.CreateOptions{})
		if err == nil || apierrors.IsAlreadyExists(err) {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("creating node %s: %v", n.Name, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// updateNode applies change to the current node and writes it back (its
// metadata and spec, and with status its status), retrying on conflicts.
func (e *env) updateNode(name string, status bool, change func(*v1.Node)) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := e.client.CoreV1().Nodes().Get(e.ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		change(n)
		if status {
			_, err = e.client.CoreV1().Nodes().UpdateStatus(e.ctx, n, metav1.UpdateOptions{})
		} else {
			_, err = e.client.CoreV1().Nodes().Update(e.ctx, n, metav1.UpdateOptions{})
		}
		return err
	})
}

// scheduledEvents counts, per pod of ns, the Scheduled events and the node
// each names ("Successfully assigned ns/pod to node"), and collects the
// FailedScheduling messages that report a binding the API server refused.
func (e *env) scheduledEvents(ns string) (count map[string]int, nodes map[string][]string, refused []string) {
	e.t.Helper()
	evs, err := e.client.CoreV1().Events(ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		e.t.Fatalf("listing the events of %s: %v", ns, err)
	}
	count, nodes = map[string]int{}, map[string][]string{}
	for _, ev := range evs.Items {
		if ev.InvolvedObject.Kind != "Pod" {
			continue
		}
		name := ev.InvolvedObject.Name
		switch ev.Reason {
		case "Scheduled":
			n := max(1, int(ev.Count))
			if ev.Series != nil {
				n = max(n, int(ev.Series.Count))
			}
			count[name] += n
			if i := strings.LastIndex(ev.Message, " to "); i >= 0 {
				nodes[name] = append(nodes[name], ev.Message[i+len(" to "):])
			}
		case "FailedScheduling":
			if strings.Contains(ev.Message, "already assigned") || strings.Contains(strings.ToLower(ev.Message), "binding rejected") {
				refused = append(refused, name+": "+ev.Message)
			}
		}
	}
	return count, nodes, refused
}
