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
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/windows-aware/windows-aware/internal/controlplane"
	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/oracle"
	"github.com/windows-aware/windows-aware/internal/registryserver"
	"github.com/windows-aware/windows-aware/pkg/explain"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// pool is a set of identical simulated nodes.
type pool struct {
	prefix string
	count  int
	os     string
	build  string // Windows only
	kernel string // status.nodeInfo.kernelVersion
	sku    string // AKS's OS SKU, Windows only
}

type config struct {
	pools []pool
}

// defaultConfig is 5,000 nodes: 4,400 Linux, 200 each of Windows Server
// 2019, 2022 and 2025, with the kernel versions (revisions included) of
// mid-2025 patch levels.
func defaultConfig() config { return scaledConfig(5000) }

// scaledConfig keeps the proportions of defaultConfig for n nodes
// (DEMO_NODES, for a quicker look).
func scaledConfig(n int) config {
	win := max(n*4/100, 1)
	return config{pools: []pool{
		{prefix: "linux", count: n - 3*win, os: "linux", kernel: "6.12.48+deb13-amd64"},
		{prefix: "win2019", count: win, os: "windows", build: oracle.Build2019, kernel: "10.0.17763.7678", sku: "Windows2019"},
		{prefix: "win2022", count: win, os: "windows", build: oracle.Build2022, kernel: "10.0.20348.4052", sku: "Windows2022"},
		{prefix: "win2025", count: win, os: "windows", build: oracle.Build2025, kernel: "10.0.26100.4946", sku: "Windows2025"},
	}}
}

func (c config) total() int {
	n := 0
	for _, p := range c.pools {
		n += p.count
	}
	return n
}

type demo struct {
	c    *controlplane.Cluster
	cfg  config
	root string
	// registry holds the private images whose platforms only it knows.
	registry *registryserver.Demo
	// schedulerConfig is the configuration the scheduler runs with.
	schedulerConfig string

	nodes    cache.SharedIndexInformer
	factory  informers.SharedInformerFactory
	timeline []string

	// admission is the webhook, once started; optIn what applying the
	// third party's charts through it printed (kubectl's own output),
	// and what was read back from the API server, for reportThirdParty.
	admission *admission
	optIn     *strings.Builder
	// judgeDaemonSet is judge's, once made.
	judgeDaemonSet func(*appsv1.DaemonSet) (*explain.DaemonSetReport, error)
}

func (d *demo) mark(step string, since time.Time) {
	d.timeline = append(d.timeline, fmt.Sprintf("%-36s %6.1fs", step, time.Since(since).Seconds()))
}

func (d *demo) run(ctx context.Context) error {
	d.mark("control plane up", start)
	// kubectl windows-aware explain then decides with the args the demo's
	// scheduler runs with (its imageResolution included), as on a cluster
	// installed from the chart.
	if err := d.c.PublishSchedulerConfig(ctx, metav1.NamespaceSystem); err != nil {
		return err
	}
	d.factory = informers.NewSharedInformerFactory(d.c.Client, 0)
	d.nodes = d.factory.Core().V1().Nodes().Informer()
	d.factory.Start(ctx.Done())

	t := time.Now()
	if err := d.registerNodes(ctx); err != nil {
		return err
	}
	d.mark(fmt.Sprintf("%d nodes registered", d.cfg.total()), t)
	t = time.Now()
	if err := d.waitNodesReady(ctx); err != nil {
		return err
	}
	d.mark("nodes made Ready by kwok", t)

	t = time.Now()
	ws, err := d.applyWorkloads(ctx)
	if err != nil {
		return err
	}
	d.mark("workloads applied", t)
	t = time.Now()
	res, err := d.waitPods(ctx, ws)
	if err != nil {
		return err
	}
	d.mark("pods placed (bound, or pending)", t)

	// Only now, with every pod above created under the scheduler its
	// workload names: the cluster-wide opt-in would give the profile the
	// pods of the stock scheduler's namespaces created after it.
	t = time.Now()
	if err := controlplane.CreateNamespace(ctx, d.c.Client, optInNS); err != nil {
		return err
	}
	if err := d.startAdmission(ctx, optInNS); err != nil {
		return err
	}
	d.mark("admission webhook up, called", t)
	t = time.Now()
	more, err := d.applyThroughWebhook(ctx)
	if err != nil {
		return err
	}
	d.mark("third party applied with kubectl", t)
	t = time.Now()
	moreRes, err := d.waitPods(ctx, more)
	if err != nil {
		return err
	}
	d.mark("their pods placed", t)
	d.mark("total", start)
	ws = append(ws, more...)
	for id, pods := range moreRes.pods {
		res.pods[id] = pods
	}
	for pod, msg := range moreRes.failed {
		res.failed[pod] = msg
	}
	d.report(ws, res)
	return d.reportThirdParty(ctx)
}

func (d *demo) node(p pool, i int) *v1.Node {
	o := fixture.NodeOptions{OS: p.os, Build: p.build, KernelVersion: p.kernel, Kwok: true, CPU: "16", Memory: "64Gi", Pods: 110}
	if p.os == oracle.Windows {
		o.Taints = []v1.Taint{fixture.WindowsTaint}
	}
	// The pool label, as AKS sets it, lets kubectl windows-aware name the
	// pool that does or does not run a pod. The Windows pools carry the
	// labels AKS and Karpenter set too, AKS's OS SKU and Karpenter's
	// NodePool (named as the pool), so that one cluster shows both
	// platforms' moves to Windows Server 2025 (docs/upgrade-windows.md).
	o.Labels = map[string]string{"agentpool": p.prefix}
	if p.os == oracle.Windows {
		o.Labels[wellknown.LabelAKSOSSKU] = p.sku
		o.Labels[wellknown.LabelKarpenterNodePool] = p.prefix
	}
	n := fixture.Node(fmt.Sprintf("%s-%04d", p.prefix, i), o)
	// kwok makes them Ready (its node-initialize stage plays on nodes
	// without a Ready condition).
	n.Status.Conditions = nil
	n.Status.Phase = ""
	return n
}

func (d *demo) registerNodes(ctx context.Context) error {
	total := d.cfg.total()
	logf("registering %d simulated nodes: %s", total, d.cfg.describe())
	var created atomic.Int64
	done := make(chan struct{})
	defer close(done)
	go progress(done, func() string { return fmt.Sprintf("nodes registered %d/%d", created.Load(), total) })
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(32)
	for _, p := range d.cfg.pools {
		for i := 1; i <= p.count; i++ {
			n := d.node(p, i)
			g.Go(func() error {
				_, err := d.c.Client.CoreV1().Nodes().Create(gctx, n, metav1.CreateOptions{})
				if err != nil && !apierrors.IsAlreadyExists(err) {
					return fmt.Errorf("creating node %s: %w", n.Name, err)
				}
				created.Add(1)
				return nil
			})
		}
	}
	if err := g.Wait(); err != nil {
		return err
	}
	logf("nodes registered %d/%d", created.Load(), total)
	return nil
}

func (c config) describe() string {
	kinds := map[string]int{}
	for _, p := range c.pools {
		kinds[strings.TrimSpace(p.os+" "+p.build)] += p.count
	}
	return counted(kinds)
}

func (d *demo) waitNodesReady(ctx context.Context) error {
	total := d.cfg.total()
	ready := func() int {
		n := 0
		for _, obj := range d.nodes.GetStore().List() {
			for _, c := range obj.(*v1.Node).Status.Conditions {
				if c.Type == v1.NodeReady && c.Status == v1.ConditionTrue {
					n++
				}
			}
		}
		return n
	}
	done := make(chan struct{})
	defer close(done)
	go progress(done, func() string { return fmt.Sprintf("nodes Ready (kwok) %d/%d", ready(), total) })
	deadline := time.Now().Add(5 * time.Minute)
	for ready() < total {
		if time.Now().After(deadline) {
			return fmt.Errorf("only %d of %d nodes Ready after 5 minutes; see .demo/logs/kwok.log", ready(), total)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
	logf("nodes Ready %d/%d", total, total)
	return nil
}

// progress prints line() every 2 seconds until done closes.
func progress(done <-chan struct{}, line func() string) {
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
			logf("%s", line())
		}
	}
}
