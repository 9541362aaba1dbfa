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
	"path/filepath"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/windows-aware/windows-aware/internal/controlplane"
	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/manifest"
	"github.com/windows-aware/windows-aware/internal/oracle"
)

// workloadSet is a namespace of workloads applied from files.
type workloadSet struct {
	ns    string
	about string
	files []string
	// stock clears the pods' schedulerName: the stock default-scheduler.
	stock bool
	// osOnly gives the Windows Deployments the guide's OS nodeSelector and
	// os=windows toleration, but no build selector, and skips the others.
	osOnly bool
	// daemonSets creates the DaemonSets of files (skipped otherwise): the
	// demo runs no DaemonSet controller, so they run no pods and are
	// counted by reportThirdParty.
	daemonSets bool
	// objects are applied after files.
	objects []runtime.Object
	// throughWebhook sets are applied later, with kubectl, once the
	// admission webhook is registered (thirdparty.go): applyWorkloads
	// skips them.
	throughWebhook bool
}

func (d *demo) sets() []workloadSet {
	ex := func(f string) string { return filepath.Join(d.root, "manifests", "examples", f) }
	wl := func(f string) string { return filepath.Join(d.root, "hack", "demo", "workloads", f) }
	examples := []string{ex("win-webserver.yaml"), ex("iis-2019.yaml"), ex("multi-release.yaml")}
	sets := []workloadSet{
		{ns: "guide", about: "the guide's workloads as written (nodeSelector, RuntimeClass), default-scheduler", files: []string{wl("seed.yaml")}},
		{ns: "windows-aware", about: "the same workloads without selectors (manifests/examples), windows-aware", files: examples},
		{ns: "stock-no-selectors", about: "the same workloads without selectors, default-scheduler", files: examples, stock: true},
		{ns: "stock-os-selector", about: "the Windows ones with the guide's OS selector and toleration, no build selector, default-scheduler", files: examples, stock: true, osOnly: true},
		{ns: "linux", about: "ordinary Linux workloads, default-scheduler", files: []string{wl("linux.yaml")}},
		{ns: "pinned", about: "ltsc2022 workloads pinned to 2022 by the guide's build selector and RuntimeClass, AKS's OS SKU and an agent's selector, default-scheduler",
			files: []string{wl("pinned.yaml")}, stock: true, daemonSets: true},
		{ns: thirdPartyNS, about: "a third party's charts as they come (DaemonSets counted, below), default-scheduler",
			files: []string{wl("third-party.yaml")}, stock: true, daemonSets: true},
	}
	if d.registry != nil {
		sets = append(sets,
			workloadSet{ns: "registry", about: "private images whose tags name no build (loopback registry), no selectors, windows-aware",
				objects: registryDeployments(d.registry, false)},
			workloadSet{ns: "registry-stock", about: "the Windows-only ones with the guide's OS selector and toleration, default-scheduler",
				objects: registryDeployments(d.registry, true)})
	}
	// Last, so that every pod of the sets above exists before the
	// cluster-wide opt-in is on: they keep the scheduler they were
	// created with.
	sets = append(sets, workloadSet{ns: optInNS, about: "the same charts and an ltsc2016 Deployment, with the cluster-wide opt-in and template mode on (below)",
		throughWebhook: true})
	return sets
}

// workload is one Deployment of the demo.
type workload struct {
	ns, name  string
	scheduler string
	replicas  int
	selector  labels.Selector
}

func (w workload) id() string { return w.ns + "/" + w.name }

func (d *demo) applyWorkloads(ctx context.Context) ([]workload, error) {
	var ws []workload
	for _, set := range d.sets() {
		if set.throughWebhook {
			continue
		}
		logf("applying %s: %s", set.ns, set.about)
		if err := controlplane.CreateNamespace(ctx, d.c.Client, set.ns); err != nil {
			return nil, err
		}
		for _, file := range set.files {
			objs, err := manifest.ReadFile(file)
			if err != nil {
				return nil, err
			}
			for _, obj := range objs {
				w, err := d.apply(ctx, set, obj)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", file, err)
				}
				if w != nil {
					ws = append(ws, *w)
				}
			}
		}
		for _, obj := range set.objects {
			w, err := d.apply(ctx, set, obj)
			if err != nil {
				return nil, err
			}
			if w != nil {
				ws = append(ws, *w)
			}
		}
	}
	return ws, nil
}

func (d *demo) apply(ctx context.Context, set workloadSet, obj runtime.Object) (*workload, error) {
	client := d.c.Client
	switch o := obj.(type) {
	case *nodev1.RuntimeClass:
		_, err := client.NodeV1().RuntimeClasses().Create(ctx, o, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return nil, err
		}
		return nil, nil
	case *v1.Service:
		_, err := client.CoreV1().Services(set.ns).Create(ctx, o, metav1.CreateOptions{})
		return nil, err
	case *appsv1.Deployment:
		spec := &o.Spec.Template.Spec
		if set.stock {
			spec.SchedulerName = ""
		}
		if set.osOnly {
			if os, err := oracle.PodOS(spec); err != nil || os != oracle.Windows {
				return nil, err
			}
			spec.NodeSelector = map[string]string{v1.LabelOSStable: oracle.Windows}
			spec.Tolerations = append(spec.Tolerations, fixture.WindowsToleration)
		}
		created, err := client.AppsV1().Deployments(set.ns).Create(ctx, o, metav1.CreateOptions{})
		if err != nil {
			return nil, err
		}
		w, err := workloadOf(created)
		if err != nil {
			return nil, err
		}
		var images []string
		for _, c := range spec.Containers {
			images = append(images, c.Image)
		}
		logf("  deployment/%s: %d replicas, %s, %s", o.Name, w.replicas, w.scheduler, strings.Join(images, ", "))
		return w, nil
	case *appsv1.DaemonSet:
		if !set.daemonSets {
			logf("  skipping daemonset/%s", o.Name)
			return nil, nil
		}
		if set.stock {
			o.Spec.Template.Spec.SchedulerName = ""
		}
		_, err := client.AppsV1().DaemonSets(set.ns).Create(ctx, o, metav1.CreateOptions{})
		logf("  daemonset/%s: created; no DaemonSet controller runs it, its placement is counted below", o.Name)
		return nil, err
	}
	return nil, fmt.Errorf("unexpected object %T", obj)
}

// workloadOf is the workload of a Deployment: its scheduler is the one
// its template names, which the cluster-wide opt-in may change in its
// pods (report shows the pods').
func workloadOf(o *appsv1.Deployment) (*workload, error) {
	sel, err := metav1.LabelSelectorAsSelector(o.Spec.Selector)
	if err != nil {
		return nil, err
	}
	w := &workload{ns: o.Namespace, name: o.Name, scheduler: o.Spec.Template.Spec.SchedulerName, replicas: 1, selector: sel}
	if w.scheduler == "" {
		w.scheduler = v1.DefaultSchedulerName
	}
	if o.Spec.Replicas != nil {
		w.replicas = int(*o.Spec.Replicas)
	}
	return w, nil
}
