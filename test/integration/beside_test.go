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
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"

	"github.com/windows-aware/windows-aware/internal/controlplane"
	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/latencyrelay"
	"github.com/windows-aware/windows-aware/internal/oracle"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// The race of two schedulers beside each other (docs/install.md, "Beside
// the stock scheduler"): each assumes its pods in its own cache and learns
// of the other's binds only from its informer, so under bursts, with the
// API server a network hop away, both fill the same room.
const (
	// besideOneWay is the latency each scheduler sees to the API server,
	// each way: a managed control plane is a network hop away.
	besideOneWay = 15 * time.Millisecond
	// besidePods are created per round by besideClients clients at once,
	// half of them the stock scheduler's, on besideNodesPerOS nodes of
	// each OS of 4 CPUs: 48 pods of 500m fit.
	besidePods       = 120
	besideClients    = 8
	besideNodesPerOS = 3
	besideRounds     = 2
	besidePodCPU     = "500m"
	besideNodeCPU    = "4"
	// besideDaemonSets per OS make the stock half DaemonSet pods: each puts
	// one pod on each node of its OS.
	besideDaemonSets = 4
)

// besideImages are the images of the pods of each OS.
var besideImages = map[string]string{
	oracle.Linux:   "registry.k8s.io/pause:3.10",
	oracle.Windows: "mcr.microsoft.com/windows/nanoserver:ltsc2022",
}

// TestBesideWithoutOvercommit runs the stock profile and manifests/beside's
// configuration as two scheduler processes against a real API server and
// kube-controller-manager, each through a relay that delays every byte by
// 15 ms each way, and creates bursts of pods from 8 clients at once racing
// for 6 nodes of 4 CPUs (3 Linux, 3 Windows Server 2022 tainted
// os=windows:NoSchedule), half of them written for the stock scheduler as
// the Kubernetes guide writes them. After each round it counts the nodes
// whose bound pods request more CPU than the node has.
//
//   - Opt-in: the namespace opts in, so the stock half (DaemonSet pods
//     among them, made by the DaemonSet controller) becomes the profile's:
//     one scheduler binds, 0 nodes over.
//   - Opted out, racing (with BESIDE_RACE=1: a measurement, not a check,
//     so not in every run): the stock half stays with the stock scheduler;
//     the figure with BindGuard off and on is logged, each bind past
//     capacity counted for the scheduler that made it (docs/install.md).
//   - The control: one process with both profiles (the static-pod
//     install: one cache) and the same pods, 0 nodes over.
func TestBesideWithoutOvercommit(t *testing.T) {
	if testing.Short() {
		t.Skip("a race of two schedulers under bursts: not with -short")
	}
	e := besideCluster(t)
	kubeconfig := e.relayedKubeconfig(besideOneWay)
	root, err := controlplane.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	beside := filepath.Join(root, "manifests", "beside", "scheduler-config.yaml")
	static := filepath.Join(root, controlplane.ShippedSchedulerConfig)

	t.Run("opt-in, DaemonSet pods among the stock half", func(t *testing.T) {
		e := e.sub(t)
		e.startSchedulers(kubeconfig, map[string]string{"stock": stockConfig, "windows-aware": readConfig(t, beside)})
		ns := e.namespace()
		e.labelNamespace(ns, "true")
		e.startTemplatesWebhook("cluster-wide", ns)
		e.waitWebhookCalled(ns, windowsAware)
		over := e.besideRounds(ns, besideRound{daemonSets: true})
		if over.nodes != 0 {
			t.Errorf("%d of %d node-rounds over their CPU with the namespace opted in (%d pods past capacity): want 0", over.nodes, over.nodeRounds, over.pods)
		}
		if over.stockBound != 0 {
			t.Errorf("%d pods bound by the stock scheduler in a namespace that opts in: want every pod the profile's", over.stockBound)
		}
	})
	for _, guard := range []bool{false, true} {
		if os.Getenv("BESIDE_RACE") != "1" {
			break
		}
		t.Run(fmt.Sprintf("opted out, racing, BindGuard %v", map[bool]string{false: "off", true: "on"}[guard]), func(t *testing.T) {
			e := e.sub(t)
			cfg := readConfig(t, beside)
			if guard {
				cfg = strings.Replace(cfg, "          - name: OSTaintToleration\n", "          - name: OSTaintToleration\n          - name: BindGuard\n", 1)
				if !strings.Contains(cfg, "name: BindGuard") {
					t.Fatal("no place to enable BindGuard in manifests/beside's configuration")
				}
			}
			e.startSchedulers(kubeconfig, map[string]string{"stock": stockConfig, "windows-aware": cfg})
			over := e.besideRounds(e.namespace(), besideRound{optedOut: true})
			t.Logf("beside, opted out, BindGuard %v: %s", guard, over)
		})
	}
	t.Run("static pod: one process, both profiles", func(t *testing.T) {
		e := e.sub(t)
		e.startSchedulers(kubeconfig, map[string]string{"both": readConfig(t, static)})
		over := e.besideRounds(e.namespace(), besideRound{optedOut: true})
		if over.nodes != 0 {
			t.Errorf("%d of %d node-rounds over their CPU through one cache (%d pods past capacity): want 0", over.nodes, over.nodeRounds, over.pods)
		}
	})
}

// stockConfig is the stock scheduler's configuration: default-scheduler,
// upstream's plugins.
const stockConfig = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: ""
leaderElection:
  leaderElect: false
profiles:
  - schedulerName: default-scheduler
`

// besideCluster is a control plane of its own with kube-controller-manager
// (the DaemonSet controller) and no scheduler: each subtest runs its own.
func besideCluster(t *testing.T) *env {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c, err := controlplane.Start(ctx, controlplane.Options{ControllerManager: true, Logf: func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "[%s %6.1fs] %s\n", t.Name(), time.Since(start).Seconds(), fmt.Sprintf(format, args...))
	}})
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
	bins, err := controlplane.FindBinaries("", "", controlplane.Scheduler)
	if err != nil {
		t.Fatal(err)
	}
	c.Binaries.Scheduler = bins.Scheduler
	// The webhook reads the profile's args from the shipped configuration.
	if c.SchedulerConfigFile, err = writeShippedConfig(c); err != nil {
		t.Fatal(err)
	}
	testCtx, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	return &env{t: t, c: c, client: c.Client, ctx: testCtx}
}

// writeShippedConfig writes the shipped scheduler configuration, pointed at
// the cluster, for the webhook to read its profile's args from.
func writeShippedConfig(c *controlplane.Cluster) (string, error) {
	root, err := controlplane.RepoRoot()
	if err != nil {
		return "", err
	}
	data, err := os.ReadFile(filepath.Join(root, controlplane.ShippedSchedulerConfig))
	if err != nil {
		return "", err
	}
	out, err := controlplane.RewriteKubeconfig(data, c.SchedulerKubeconfig)
	if err != nil {
		return "", err
	}
	path := filepath.Join(c.Dir, "shipped-scheduler-config.yaml")
	return path, os.WriteFile(path, out, 0o644)
}

// relayedKubeconfig writes the scheduler's kubeconfig with the API server
// reached through a latencyrelay of oneWay each way.
func (e *env) relayedKubeconfig(oneWay time.Duration) string {
	e.t.Helper()
	relay, err := latencyrelay.Start(strings.TrimPrefix(e.c.APIServerURL, "https://"), oneWay)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = relay.Close() })
	cfg, err := clientcmd.LoadFromFile(e.c.SchedulerKubeconfig)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, cluster := range cfg.Clusters {
		cluster.Server = "https://" + relay.Addr()
	}
	path := filepath.Join(e.c.Dir, "scheduler-relayed.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		e.t.Fatal(err)
	}
	return path
}

// readConfig is a scheduler configuration file, with leader election off:
// each process of these tests is alone with its profiles.
func readConfig(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg := strings.Replace(string(data), "leaderElect: true", "leaderElect: false", 1)
	if !strings.Contains(cfg, "leaderElect: false") {
		t.Fatalf("%s: no leaderElect: true to turn off", path)
	}
	return cfg
}

// startSchedulers runs one scheduler process per configuration, each
// reaching the API server through kubeconfig, until the test ends.
func (e *env) startSchedulers(kubeconfig string, configs map[string]string) {
	e.t.Helper()
	for name, cfg := range configs {
		if !strings.Contains(cfg, "clientConnection:") {
			cfg = "clientConnection:\n  kubeconfig: \"\"\n" + cfg
		}
		out, err := controlplane.RewriteKubeconfig([]byte(cfg), kubeconfig)
		if err != nil {
			e.t.Fatalf("%s: %v", name, err)
		}
		dir := e.t.TempDir()
		file := filepath.Join(dir, "scheduler-config.yaml")
		if err := os.WriteFile(file, out, 0o600); err != nil {
			e.t.Fatal(err)
		}
		e.runSchedulerConfig("beside-"+strings.ReplaceAll(e.t.Name(), "/", "-")+"-"+name, file)
	}
}

// besideRound says how a round's stock half is made.
type besideRound struct {
	// daemonSets: part of the stock half are the pods of
	// besideDaemonSets DaemonSets per OS, written as the guide writes
	// them.
	daemonSets bool
	// optedOut: the stock half's plain pods are labelled opt-in=false, as
	// pods that stay with the stock scheduler in a namespace that opts in.
	optedOut bool
}

// overcommit is what the rounds found.
type overcommit struct {
	// nodes of nodeRounds ended over their CPU, with pods past capacity.
	nodeRounds, nodes, pods int
	bound, stockBound       int
	// lateStock and lateProfile are the binds that took a node past its
	// CPU, in the order the API server committed them, by the scheduler
	// that made them: the pods a kubelet would reject.
	lateStock, lateProfile int
}

func (o *overcommit) add(r overcommit) {
	o.nodeRounds += r.nodeRounds
	o.nodes += r.nodes
	o.pods += r.pods
	o.bound += r.bound
	o.stockBound += r.stockBound
	o.lateStock += r.lateStock
	o.lateProfile += r.lateProfile
}

// String says it in a line.
func (o overcommit) String() string {
	return fmt.Sprintf("%d of %d node-rounds over their CPU, %d pods past capacity (bound after the node was full: %d by the stock scheduler, %d by the profile) of %d bound (%d by the stock scheduler)",
		o.nodes, o.nodeRounds, o.pods, o.lateStock, o.lateProfile, o.bound, o.stockBound)
}

// besideRuns numbers the runs of besideRounds, for their nodes' names.
var besideRuns atomic.Int32

// besideRounds runs besideRounds rounds in ns, each on nodes of its own,
// and counts the node-rounds whose bound pods request more CPU than the
// node has.
func (e *env) besideRounds(ns string, round besideRound) overcommit {
	e.t.Helper()
	var total overcommit
	run := besideRuns.Add(1)
	for r := range besideRounds {
		// Short: a node's name is its hostname label too (63 bytes).
		prefix := fmt.Sprintf("beside-%d-r%d", run, r)
		var nodes []*v1.Node
		for i := range besideNodesPerOS {
			nodes = append(nodes,
				fixture.Node(fmt.Sprintf("%s-linux-%d", prefix, i), fixture.NodeOptions{OS: oracle.Linux, CPU: besideNodeCPU}),
				fixture.Node(fmt.Sprintf("%s-win-%d", prefix, i), fixture.NodeOptions{OS: oracle.Windows, Build: oracle.Build2022, CPU: besideNodeCPU, Taints: []v1.Taint{fixture.WindowsTaint}}))
		}
		binds := e.watchBinds(ns)
		e.createNodes(nodes...)
		names := map[string]bool{}
		for _, n := range nodes {
			names[n.Name] = true
		}
		plain, stock := besidePods, besidePods/2
		if round.daemonSets {
			e.createBesideDaemonSets(ns, prefix)
			daemonSetPods := 2 * besideDaemonSets * besideNodesPerOS
			plain, stock = besidePods-daemonSetPods, besidePods/2-daemonSetPods
		}
		var failed atomic.Int32
		parallel(plain, besideClients, func(i int) {
			os := []string{oracle.Linux, oracle.Windows}[i%2]
			// Pairs of pods (one per OS) alternate between the halves, so
			// that both schedulers' pods arrive all through the burst;
			// the odd pairs are the stock scheduler's, up to stock pods.
			pair := i / 2
			p := besidePod(fmt.Sprintf("%s-%d", prefix, i), os, pair%2 == 1 && pair/2 < stock/2, round.optedOut)
			if _, err := e.client.CoreV1().Pods(ns).Create(e.ctx, p, metav1.CreateOptions{}); err != nil {
				failed.Add(1)
				e.t.Errorf("creating pod %s: %v", p.Name, err)
			}
		})
		if failed.Load() > 0 {
			e.t.FailNow()
		}
		pods := e.settled(ns, names)
		got := countOvercommit(nodes, pods, binds())
		e.t.Logf("round %d: %s", r, got)
		total.add(got)
		e.clearBesideRound(ns, nodes)
	}
	return total
}

// besidePod is a pod of 500m for os: the stock scheduler's, with the
// guide's selector and toleration (opted out of the profile with
// optedOut), or the profile's, with neither.
func besidePod(name, os string, stock, optedOut bool) *v1.Pod {
	p := fixture.Pod(name, windowsAware, besideImages[os])
	p.Labels = map[string]string{"beside": "true"}
	p.Spec.Containers[0].Resources.Requests = v1.ResourceList{v1.ResourceCPU: resource.MustParse(besidePodCPU)}
	p.Spec.TerminationGracePeriodSeconds = ptr.To[int64](0)
	if stock {
		guideWritten(&p.Spec, os)
		if optedOut {
			p.Labels[wellknown.LabelOptIn] = "false"
		}
	}
	return p
}

// guideWritten makes spec the stock scheduler's, written as the Kubernetes
// guide writes a pod of os for it.
func guideWritten(spec *v1.PodSpec, os string) {
	spec.SchedulerName = v1.DefaultSchedulerName
	spec.NodeSelector = map[string]string{v1.LabelOSStable: os}
	if os == oracle.Windows {
		spec.Tolerations = []v1.Toleration{fixture.WindowsToleration}
	}
}

// createBesideDaemonSets creates besideDaemonSets DaemonSets per OS, each
// of one 500m pod per node of its OS, written for the stock scheduler as
// the guide writes them (no schedulerName: the namespace's opt-in decides).
func (e *env) createBesideDaemonSets(ns, prefix string) {
	e.t.Helper()
	for _, os := range []string{oracle.Linux, oracle.Windows} {
		for i := range besideDaemonSets {
			name := fmt.Sprintf("%s-%s-ds-%d", prefix, os, i)
			labels := map[string]string{"ds": name}
			spec := v1.PodSpec{
				Containers:                    []v1.Container{{Name: "agent", Image: besideImages[os], Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse(besidePodCPU)}}}},
				TerminationGracePeriodSeconds: ptr.To[int64](0),
			}
			guideWritten(&spec, os)
			spec.SchedulerName = ""
			ds := &appsv1.DaemonSet{
				ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
				Spec: appsv1.DaemonSetSpec{
					Selector: &metav1.LabelSelector{MatchLabels: labels},
					Template: v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec},
				},
			}
			if _, err := e.client.AppsV1().DaemonSets(ns).Create(e.ctx, ds, metav1.CreateOptions{}); err != nil {
				e.t.Fatalf("creating DaemonSet %s: %v", name, err)
			}
		}
	}
}

// settleQuiet is how long the pods must stay put to count as settled:
// longer than the scheduler's longest backoff (10 s), after which a pod
// whose bind BindGuard refused is tried again.
const settleQuiet = 12 * time.Second

// settled waits until the pods of ns on nodes (or pending) stop changing
// for settleQuiet, at most 2 minutes, and returns them.
func (e *env) settled(ns string, nodes map[string]bool) []v1.Pod {
	e.t.Helper()
	var last string
	stableSince := time.Now()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(500 * time.Millisecond) {
		list, err := e.client.CoreV1().Pods(ns).List(e.ctx, metav1.ListOptions{})
		if err != nil {
			e.t.Fatal(err)
		}
		var now strings.Builder
		var pods []v1.Pod
		for _, p := range list.Items {
			if p.Spec.NodeName != "" && !nodes[p.Spec.NodeName] {
				continue // a pod of an earlier round, on its way out
			}
			pods = append(pods, p)
			fmt.Fprintf(&now, "%s=%s;", p.Name, p.Spec.NodeName)
		}
		if now.String() != last {
			last, stableSince = now.String(), time.Now()
		}
		if time.Since(stableSince) >= settleQuiet && len(pods) > 0 {
			return pods
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("the pods of %s did not settle within 2 minutes", ns)
		}
	}
}

// bind is a pod's binding as the API server committed it.
type bind struct {
	node  string
	stock bool
	cpu   resource.Quantity
}

// watchBinds watches the pods of ns from now on, and returns what stops
// the watch and lists their binds in the order the API server committed
// them.
func (e *env) watchBinds(ns string) func() []bind {
	e.t.Helper()
	w, err := e.client.CoreV1().Pods(ns).Watch(e.ctx, metav1.ListOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	var binds []bind
	done := make(chan struct{})
	go func() {
		defer close(done)
		seen := map[string]bool{}
		for ev := range w.ResultChan() {
			p, ok := ev.Object.(*v1.Pod)
			if !ok || p.Spec.NodeName == "" || seen[p.Name] {
				continue
			}
			seen[p.Name] = true
			var cpu resource.Quantity
			for _, c := range p.Spec.Containers {
				cpu.Add(c.Resources.Requests[v1.ResourceCPU])
			}
			binds = append(binds, bind{node: p.Spec.NodeName, stock: p.Spec.SchedulerName == v1.DefaultSchedulerName, cpu: cpu})
		}
	}()
	return func() []bind {
		w.Stop()
		<-done
		return binds
	}
}

// countOvercommit counts the nodes whose bound pods request more CPU than
// they have and the pods past capacity on them, and, replaying binds, the
// binds that found their node full, by scheduler.
func countOvercommit(nodes []*v1.Node, pods []v1.Pod, binds []bind) overcommit {
	requested := map[string]*resource.Quantity{}
	for _, n := range nodes {
		requested[n.Name] = resource.NewMilliQuantity(0, resource.DecimalSI)
	}
	got := overcommit{nodeRounds: len(nodes)}
	for _, p := range pods {
		q, ok := requested[p.Spec.NodeName]
		if !ok {
			continue
		}
		got.bound++
		if p.Spec.SchedulerName == v1.DefaultSchedulerName {
			got.stockBound++
		}
		for _, c := range p.Spec.Containers {
			q.Add(c.Resources.Requests[v1.ResourceCPU])
		}
	}
	taken := map[string]*resource.Quantity{}
	for _, n := range nodes {
		taken[n.Name] = resource.NewMilliQuantity(0, resource.DecimalSI)
	}
	for _, b := range binds {
		q, ok := taken[b.node]
		if !ok {
			continue
		}
		q.Add(b.cpu)
		if q.Cmp(*nodeCPU(nodes, b.node)) > 0 {
			if b.stock {
				got.lateStock++
			} else {
				got.lateProfile++
			}
		}
	}
	perPod := resource.MustParse(besidePodCPU)
	for _, n := range nodes {
		over := requested[n.Name].MilliValue() - n.Status.Allocatable.Cpu().MilliValue()
		if over > 0 {
			got.nodes++
			got.pods += int((over + perPod.MilliValue() - 1) / perPod.MilliValue())
		}
	}
	return got
}

// nodeCPU is the allocatable CPU of the node named name.
func nodeCPU(nodes []*v1.Node, name string) *resource.Quantity {
	for _, n := range nodes {
		if n.Name == name {
			return n.Status.Allocatable.Cpu()
		}
	}
	return resource.NewQuantity(0, resource.DecimalSI)
}

// clearBesideRound deletes the round's DaemonSets, pods and nodes, and
// waits until no pod of ns is left.
func (e *env) clearBesideRound(ns string, nodes []*v1.Node) {
	e.t.Helper()
	now := metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}
	if err := e.client.AppsV1().DaemonSets(ns).DeleteCollection(e.ctx, now, metav1.ListOptions{}); err != nil {
		e.t.Fatal(err)
	}
	for _, n := range nodes {
		if err := e.client.CoreV1().Nodes().Delete(e.ctx, n.Name, metav1.DeleteOptions{}); err != nil {
			e.t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		if err := e.client.CoreV1().Pods(ns).DeleteCollection(e.ctx, now, metav1.ListOptions{}); err != nil {
			e.t.Fatal(err)
		}
		list, err := e.client.CoreV1().Pods(ns).List(e.ctx, metav1.ListOptions{})
		if err != nil {
			e.t.Fatal(err)
		}
		if len(list.Items) == 0 {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("%d pods of %s left a minute after deletion", len(list.Items), ns)
		}
	}
}
