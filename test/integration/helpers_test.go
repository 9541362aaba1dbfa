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
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/windows-aware/windows-aware/internal/controlplane"
	"github.com/windows-aware/windows-aware/internal/fixture"
)

const (
	windowsAware     = "windows-aware"
	defaultScheduler = "default-scheduler"
	// scheduleTimeout bounds how long a test waits for one pod to bind.
	scheduleTimeout = 30 * time.Second
)

// namespace creates a namespace for the test (with its default service
// account) and deletes every pod in it when the test ends.
func (e *env) namespace() string {
	e.t.Helper()
	name := strings.ToLower(regexp.MustCompile(`[^a-zA-Z0-9]+`).ReplaceAllString(e.t.Name(), "-"))
	name = strings.Trim(name, "-")
	if len(name) > 50 {
		name = name[:50]
	}
	name = fmt.Sprintf("%s-%d", strings.TrimRight(name, "-"), time.Now().UnixNano()%100000)
	if err := controlplane.CreateNamespace(e.ctx, e.client, name); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { e.deletePods(name) })
	return name
}

func (e *env) deletePods(ns string) {
	zero := int64(0)
	err := e.client.CoreV1().Pods(ns).DeleteCollection(e.ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{})
	if err != nil {
		e.t.Errorf("deleting the pods of %s: %v", ns, err)
	}
}

// createNodes creates nodes and deletes them when the test ends (after
// its pods: cleanups run last-in first-out, and namespace() runs first).
func (e *env) createNodes(nodes ...*v1.Node) {
	e.t.Helper()
	for _, n := range nodes {
		if _, err := e.client.CoreV1().Nodes().Create(e.ctx, n, metav1.CreateOptions{}); err != nil {
			e.t.Fatalf("creating node %s: %v", n.Name, err)
		}
		name := n.Name
		e.t.Cleanup(func() {
			err := e.client.CoreV1().Nodes().Delete(e.ctx, name, metav1.DeleteOptions{})
			if err != nil && !apierrors.IsNotFound(err) {
				e.t.Errorf("deleting node %s: %v", name, err)
			}
		})
	}
}

func linuxNode(name string) *v1.Node { return fixture.LinuxNode(name) }

// windowsNode is the kit's Windows node, untainted unless taints are given:
// these tests pass fixture.WindowsTaint where they want the guide's taint.
func windowsNode(name, build string, taints ...v1.Taint) *v1.Node {
	return fixture.WindowsNode(name, build, fixture.WithTaints(taints...))
}

// newPod returns a pod for scheduler with one container per image.
func newPod(name, scheduler string, images ...string) *v1.Pod {
	p := fixture.Pod(name, scheduler, images...)
	p.Labels = map[string]string{"test-pod": name}
	return p
}

func (e *env) createPod(ns string, p *v1.Pod) *v1.Pod {
	e.t.Helper()
	created, err := e.client.CoreV1().Pods(ns).Create(e.ctx, p, metav1.CreateOptions{})
	if err != nil {
		e.t.Fatalf("creating pod %s: %v", p.Name, err)
	}
	return created
}

func (e *env) getPod(ns, name string) *v1.Pod {
	e.t.Helper()
	p, err := e.client.CoreV1().Pods(ns).Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatalf("getting pod %s: %v", name, err)
	}
	return p
}

func (e *env) getNode(name string) *v1.Node {
	e.t.Helper()
	n, err := e.client.CoreV1().Nodes().Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatalf("getting node %s: %v", name, err)
	}
	return n
}

// waitScheduled waits until the pod is bound and returns its node.
func (e *env) waitScheduled(ns, name string, timeout time.Duration) *v1.Node {
	e.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		p := e.getPod(ns, name)
		if p.Spec.NodeName != "" {
			return e.getNode(p.Spec.NodeName)
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("pod %s/%s not scheduled after %s; events: %s", ns, name, timeout, e.describeEvents(ns, name))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitAllScheduled waits for several pods at once.
func (e *env) waitAllScheduled(ns string, names []string, timeout time.Duration) map[string]*v1.Node {
	e.t.Helper()
	out := map[string]*v1.Node{}
	deadline := time.Now().Add(timeout)
	for _, name := range names {
		out[name] = e.waitScheduled(ns, name, max(time.Until(deadline), time.Second))
	}
	return out
}

// failedScheduling waits for a FailedScheduling event of the pod and
// returns its message, failing if the pod binds meanwhile.
func (e *env) failedScheduling(ns, name string, timeout time.Duration) string {
	e.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if msg := e.lastEvent(ns, name, "FailedScheduling"); msg != "" {
			if p := e.getPod(ns, name); p.Spec.NodeName != "" {
				e.t.Fatalf("pod %s/%s was bound to %s, want it pending (event: %s)", ns, name, p.Spec.NodeName, msg)
			}
			return msg
		}
		if p := e.getPod(ns, name); p.Spec.NodeName != "" {
			e.t.Fatalf("pod %s/%s was bound to %s, want it pending", ns, name, p.Spec.NodeName)
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("no FailedScheduling event for pod %s/%s after %s", ns, name, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// events lists the events about a pod.
func (e *env) events(ns, name string) []v1.Event {
	e.t.Helper()
	sel := fields.Set{"involvedObject.kind": "Pod", "involvedObject.name": name}.AsSelector().String()
	list, err := e.client.CoreV1().Events(ns).List(e.ctx, metav1.ListOptions{FieldSelector: sel})
	if err != nil {
		e.t.Fatalf("listing events of %s/%s: %v", ns, name, err)
	}
	return list.Items
}

// waitEvent waits for an event of reason about the pod and returns its
// message.
func (e *env) waitEvent(ns, name, reason string, timeout time.Duration) string {
	e.t.Helper()
	msgs := e.waitEvents(ns, name, reason, timeout)
	return msgs[len(msgs)-1]
}

// waitEvents waits for at least one event of reason about the pod and
// returns the messages of all such events, the latest last. Events are
// written by a broadcaster after the change they describe, so a test that
// saw the change must wait for them.
func (e *env) waitEvents(ns, name, reason string, timeout time.Duration) []string {
	e.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if msgs := e.eventMessages(ns, name, reason); len(msgs) > 0 {
			return msgs
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("no %s event for %s/%s after %s; events: %s", reason, ns, name, timeout, e.describeEvents(ns, name))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// lastEvent is the message of the latest event of reason about a pod, or
// "" when there is none yet.
func (e *env) lastEvent(ns, name, reason string) string {
	msgs := e.eventMessages(ns, name, reason)
	if len(msgs) == 0 {
		return ""
	}
	return msgs[len(msgs)-1]
}

// eventMessages lists the messages of the events of reason about a pod,
// the latest last.
func (e *env) eventMessages(ns, name, reason string) []string {
	var matching []v1.Event
	for _, ev := range e.events(ns, name) {
		if ev.Reason == reason {
			matching = append(matching, ev)
		}
	}
	slices.SortStableFunc(matching, func(a, b v1.Event) int { return eventTime(&a).Compare(eventTime(&b)) })
	msgs := make([]string, len(matching))
	for i := range matching {
		msgs[i] = matching[i].Message
	}
	return msgs
}

func eventTime(ev *v1.Event) time.Time {
	if !ev.EventTime.IsZero() {
		return ev.EventTime.Time
	}
	return ev.LastTimestamp.Time
}

func (e *env) describeEvents(ns, name string) string {
	var parts []string
	for _, ev := range e.events(ns, name) {
		parts = append(parts, fmt.Sprintf("%s: %s", ev.Reason, ev.Message))
	}
	if len(parts) == 0 {
		return "(none)"
	}
	return strings.Join(parts, " | ")
}

// staysPending checks that the pod is still unbound after d.
func (e *env) staysPending(ns, name string, d time.Duration) {
	e.t.Helper()
	time.Sleep(d)
	if p := e.getPod(ns, name); p.Spec.NodeName != "" {
		e.t.Fatalf("pod %s/%s was bound to %s, want it pending", ns, name, p.Spec.NodeName)
	}
}

// killedOnPurpose are the scheduler pids a test killed.
var killedOnPurpose sync.Map

// schedulersAlive fails the test if a scheduler that was not killed on
// purpose exited (a panic, say).
func (e *env) schedulersAlive() {
	e.t.Helper()
	for _, p := range e.c.Schedulers() {
		if _, killed := killedOnPurpose.Load(p.Pid()); p.Exited() && !killed {
			e.t.Errorf("%s (pid %d) exited; log %s:\n%s", p.Name, p.Pid(), p.LogFile, p.Tail(3000))
		}
	}
}

func buildOf(n *v1.Node) string { return n.Labels[v1.LabelWindowsBuild] }
func osOf(n *v1.Node) string    { return n.Labels[v1.LabelOSStable] }

func hostProcess(p *v1.Pod) *v1.Pod {
	p.Spec.OS = &v1.PodOS{Name: v1.Windows}
	return fixture.HostProcess(p)
}

// parallel runs f for 0..n-1 on workers goroutines.
func parallel(n, workers int, f func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// createObject creates a manifest's object (a ServiceAccount, RBAC or an
// admission policy and its binding) and deletes it when the test ends.
func (e *env) createObject(obj runtime.Object) {
	e.t.Helper()
	ctx := context.Background()
	rbac := e.client.RbacV1()
	policies := e.client.AdmissionregistrationV1()
	var err error
	switch o := obj.(type) {
	case *v1.ServiceAccount:
		_, err = e.client.CoreV1().ServiceAccounts(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		e.t.Cleanup(func() { _ = e.client.CoreV1().ServiceAccounts(o.Namespace).Delete(ctx, o.Name, metav1.DeleteOptions{}) })
	case *rbacv1.ClusterRole:
		_, err = rbac.ClusterRoles().Create(ctx, o, metav1.CreateOptions{})
		e.t.Cleanup(func() { _ = rbac.ClusterRoles().Delete(ctx, o.Name, metav1.DeleteOptions{}) })
	case *rbacv1.ClusterRoleBinding:
		_, err = rbac.ClusterRoleBindings().Create(ctx, o, metav1.CreateOptions{})
		e.t.Cleanup(func() { _ = rbac.ClusterRoleBindings().Delete(ctx, o.Name, metav1.DeleteOptions{}) })
	case *rbacv1.Role:
		_, err = rbac.Roles(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		e.t.Cleanup(func() { _ = rbac.Roles(o.Namespace).Delete(ctx, o.Name, metav1.DeleteOptions{}) })
	case *rbacv1.RoleBinding:
		_, err = rbac.RoleBindings(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		e.t.Cleanup(func() { _ = rbac.RoleBindings(o.Namespace).Delete(ctx, o.Name, metav1.DeleteOptions{}) })
	case *admissionregistrationv1.ValidatingAdmissionPolicy:
		_, err = policies.ValidatingAdmissionPolicies().Create(ctx, o, metav1.CreateOptions{})
		e.t.Cleanup(func() { _ = policies.ValidatingAdmissionPolicies().Delete(ctx, o.Name, metav1.DeleteOptions{}) })
	case *admissionregistrationv1.ValidatingAdmissionPolicyBinding:
		_, err = policies.ValidatingAdmissionPolicyBindings().Create(ctx, o, metav1.CreateOptions{})
		e.t.Cleanup(func() { _ = policies.ValidatingAdmissionPolicyBindings().Delete(ctx, o.Name, metav1.DeleteOptions{}) })
	default:
		e.t.Fatalf("unexpected object %T in a manifest", obj)
	}
	if err != nil {
		e.t.Fatalf("creating %T: %v", obj, err)
	}
}
