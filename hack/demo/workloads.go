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
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/windows-aware/windows-aware/internal/controlplane"
	"github.com/windows-aware/windows-aware/pkg/windows"
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
}

func (d *demo) sets() []workloadSet {
	ex := func(f string) string { return filepath.Join(d.root, "manifests", "examples", f) }
	wl := func(f string) string { return filepath.Join(d.root, "hack", "demo", "workloads", f) }
	examples := []string{ex("win-webserver.yaml"), ex("iis-2019.yaml"), ex("multi-release.yaml")}
	return []workloadSet{
		{ns: "guide", about: "the guide's workloads as written (nodeSelector, RuntimeClass), default-scheduler", files: []string{wl("seed.yaml")}},
		{ns: "windows-aware", about: "the same workloads without selectors, windows-aware (manifests/examples)", files: examples},
		{ns: "stock-no-selectors", about: "the same workloads without selectors, default-scheduler", files: examples, stock: true},
		{ns: "stock-os-selector", about: "the same Windows workloads with the guide's OS selector and toleration but no build selector, default-scheduler", files: examples, stock: true, osOnly: true},
		{ns: "linux", about: "ordinary Linux workloads, default-scheduler", files: []string{wl("linux.yaml")}},
	}
}

// workload is one Deployment of the demo.
type workload struct {
	ns, name  string
	set       string
	scheduler string
	replicas  int
	selector  labels.Selector
	detail    string
}

func (w workload) id() string { return w.ns + "/" + w.name }

func (d *demo) applyWorkloads(ctx context.Context) ([]workload, error) {
	var ws []workload
	for _, set := range d.sets() {
		logf("applying %s: %s", set.ns, set.about)
		if err := controlplane.CreateNamespace(ctx, d.c.Client, set.ns); err != nil {
			return nil, err
		}
		for _, file := range set.files {
			objs, err := readObjects(file)
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
		logf("  runtimeclass/%s (nodeSelector %v)", o.Name, o.Scheduling.NodeSelector)
		return nil, nil
	case *v1.Service:
		_, err := client.CoreV1().Services(set.ns).Create(ctx, o, metav1.CreateOptions{})
		return nil, err
	case *appsv1.Deployment:
		if set.stock {
			o.Spec.Template.Spec.SchedulerName = ""
		}
		if set.osOnly {
			if !runsWindows(&o.Spec.Template.Spec) {
				return nil, nil
			}
			spec := &o.Spec.Template.Spec
			spec.NodeSelector = map[string]string{v1.LabelOSStable: "windows"}
			spec.Tolerations = append(spec.Tolerations, v1.Toleration{Key: "os", Operator: v1.TolerationOpEqual, Value: "windows", Effect: v1.TaintEffectNoSchedule})
		}
		if _, err := client.AppsV1().Deployments(set.ns).Create(ctx, o, metav1.CreateOptions{}); err != nil {
			return nil, err
		}
		sel, err := metav1.LabelSelectorAsSelector(o.Spec.Selector)
		if err != nil {
			return nil, err
		}
		spec := o.Spec.Template.Spec
		w := &workload{ns: set.ns, name: o.Name, set: set.about, scheduler: spec.SchedulerName, replicas: 1, selector: sel}
		if w.scheduler == "" {
			w.scheduler = v1.DefaultSchedulerName
		}
		if o.Spec.Replicas != nil {
			w.replicas = int(*o.Spec.Replicas)
		}
		var details []string
		for k, v := range spec.NodeSelector {
			details = append(details, fmt.Sprintf("nodeSelector %s=%s", k, v))
		}
		if spec.RuntimeClassName != nil {
			details = append(details, "runtimeClassName "+*spec.RuntimeClassName)
		}
		if len(spec.Tolerations) > 0 {
			details = append(details, fmt.Sprintf("%d tolerations", len(spec.Tolerations)))
		}
		for _, c := range spec.Containers {
			details = append(details, c.Image)
		}
		w.detail = strings.Join(details, ", ")
		logf("  deployment/%s: %d replicas, %s, %s", o.Name, w.replicas, w.scheduler, w.detail)
		return w, nil
	case *appsv1.DaemonSet:
		logf("  skipping daemonset/%s", o.Name)
		return nil, nil
	}
	return nil, fmt.Errorf("unexpected object %T", obj)
}

// readObjects decodes every document of a multi-document YAML file.
func readObjects(path string) ([]runtime.Object, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var objs []runtime.Object
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(bytes.TrimSpace(stripComments(doc))) == 0 {
			continue
		}
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(doc, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		objs = append(objs, obj)
	}
}

func stripComments(doc []byte) []byte {
	var out []byte
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] != '#' && !bytes.Equal(t, []byte("---")) {
			out = append(out, line...)
			out = append(out, '\n')
		}
	}
	return out
}

// podState is what waitPods saw of the demo's pods.
type podState struct {
	pods map[string][]v1.Pod // by workload id
	// failed is the latest FailedScheduling message per namespace/pod.
	failed map[string]string
}

func (d *demo) waitPods(ctx context.Context, ws []workload) (*podState, error) {
	want := 0
	for _, w := range ws {
		want += w.replicas
	}
	logf("waiting for %d pods of %d Deployments to be placed", want, len(ws))
	deadline := time.Now().Add(4 * time.Minute)
	lastPrint := time.Time{}
	for {
		st, err := d.observe(ctx, ws)
		if err != nil {
			return nil, err
		}
		total, bound, running, explained := 0, 0, 0, 0
		for _, pods := range st.pods {
			for _, p := range pods {
				total++
				switch {
				case p.Spec.NodeName != "":
					bound++
					if p.Status.Phase == v1.PodRunning {
						running++
					}
				case st.failed[p.Namespace+"/"+p.Name] != "":
					explained++
				}
			}
		}
		line := fmt.Sprintf("pods bound %d/%d (running %d), pending with a FailedScheduling reason %d", bound, want, running, explained)
		if total >= want && running+explained >= want {
			logf("%s", line)
			return st, nil
		}
		if time.Since(lastPrint) >= 2*time.Second {
			logf("%s", line)
			lastPrint = time.Now()
		}
		if time.Now().After(deadline) {
			logf("gave up waiting after 4 minutes: %s", line)
			return st, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func (d *demo) observe(ctx context.Context, ws []workload) (*podState, error) {
	st := &podState{pods: map[string][]v1.Pod{}, failed: map[string]string{}}
	namespaces := map[string]bool{}
	for _, w := range ws {
		namespaces[w.ns] = true
	}
	for ns := range namespaces {
		pods, err := d.c.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		for _, w := range ws {
			if w.ns != ns {
				continue
			}
			for _, p := range pods.Items {
				if w.selector.Matches(labels.Set(p.Labels)) && p.DeletionTimestamp == nil {
					st.pods[w.id()] = append(st.pods[w.id()], p)
				}
			}
		}
		events, err := d.c.Client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "reason=FailedScheduling"})
		if err != nil {
			return nil, err
		}
		latest := map[string]time.Time{}
		for _, ev := range events.Items {
			key := ns + "/" + ev.InvolvedObject.Name
			at := ev.EventTime.Time
			if at.IsZero() {
				at = ev.LastTimestamp.Time
			}
			if at.After(latest[key]) || st.failed[key] == "" {
				latest[key], st.failed[key] = at, ev.Message
			}
		}
	}
	return st, nil
}

// report prints the table of where each workload landed.
func (d *demo) report(ws []workload, st *podState) {
	nodes := map[string]*v1.Node{}
	for _, obj := range d.nodes.GetStore().List() {
		n := obj.(*v1.Node)
		nodes[n.Name] = n
	}
	poolCount := map[string]int{}
	for _, n := range nodes {
		poolCount[nodeKind(n)]++
	}
	fmt.Printf("\nNodes: %d", len(nodes))
	var kinds []string
	for k := range poolCount {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		fmt.Printf(", %s ×%d", k, poolCount[k])
	}
	fmt.Printf(" (Windows nodes tainted os=windows:NoSchedule)\n")

	tbl := &table{}
	tbl.header("WORKLOAD", "SCHEDULER", "PODS", "RUNNING", "LANDED ON (OS build ×pods)", "CHECK")
	set := ""
	var pending []string
	for _, w := range ws {
		if w.set != set {
			set = w.set
			tbl.title(strings.ToUpper(set[:1]) + set[1:] + ":")
		}
		pods := st.pods[w.id()]
		placed := map[string]int{}
		running, unbound := 0, 0
		var problems []string
		problemCount := map[string]int{}
		var reason string
		for _, p := range pods {
			if p.Status.Phase == v1.PodRunning {
				running++
			}
			if p.Spec.NodeName == "" {
				unbound++
				if msg := st.failed[p.Namespace+"/"+p.Name]; msg != "" {
					reason = msg
				}
				continue
			}
			n := nodes[p.Spec.NodeName]
			if n == nil {
				placed["?"]++
				continue
			}
			placed[nodeKind(n)]++
			if pr := check(&p, n); pr != "" {
				if problemCount[pr] == 0 {
					problems = append(problems, pr)
				}
				problemCount[pr]++
			}
		}
		var where []string
		for k, n := range placed {
			where = append(where, fmt.Sprintf("%s ×%d", k, n))
		}
		sort.Strings(where)
		if unbound > 0 {
			where = append(where, fmt.Sprintf("Pending ×%d", unbound))
		}
		verdict := "ok"
		if len(problems) > 0 {
			var parts []string
			for _, pr := range problems {
				parts = append(parts, fmt.Sprintf("%s ×%d", pr, problemCount[pr]))
			}
			verdict = strings.Join(parts, ", ")
		} else if unbound > 0 {
			verdict = "pending (reason below)"
		}
		if unbound > 0 {
			pending = append(pending, fmt.Sprintf("  %s (%s): %s", w.id(), w.scheduler, orDash(reason)))
		}
		tbl.row(w.id(), w.scheduler, fmt.Sprintf("%d/%d", len(pods), w.replicas), fmt.Sprint(running), orDash(strings.Join(where, ", ")), verdict)
	}
	fmt.Println()
	tbl.print(os.Stdout)
	if len(pending) > 0 {
		fmt.Printf("\nFailedScheduling (why pods are Pending):\n%s\n", strings.Join(pending, "\n"))
	}
	fmt.Printf("\nCHECK compares each bound pod with its node by the containerd/hcsshim rule: \"WRONG OS\" and \"WRONG BUILD\" pods\nwould fail to start on a real node (the kubelet's PodOSNotSupported, HCS error 0xc0370101).\n")
	fmt.Printf("\nTimings:\n")
	for _, line := range d.timeline {
		fmt.Printf("  %s\n", line)
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func nodeKind(n *v1.Node) string {
	os := n.Labels[v1.LabelOSStable]
	if b := n.Labels[v1.LabelWindowsBuild]; b != "" {
		return os + " " + b
	}
	return os
}

var catalog = windows.DefaultCatalog()

// runsWindows reports whether a pod template has a Windows image.
func runsWindows(spec *v1.PodSpec) bool {
	for _, c := range spec.Containers {
		if img, err := catalog.ImageOf(c.Image); err == nil && img.Windows {
			return true
		}
	}
	return false
}

// check says why a bound pod would not run on its node, or "".
func check(p *v1.Pod, n *v1.Node) string {
	nodeOS := n.Labels[v1.LabelOSStable]
	podOS := "linux"
	var builds []windows.Build
	hostProcess := p.Spec.SecurityContext != nil && p.Spec.SecurityContext.WindowsOptions != nil &&
		p.Spec.SecurityContext.WindowsOptions.HostProcess != nil && *p.Spec.SecurityContext.WindowsOptions.HostProcess
	if p.Spec.OS != nil {
		podOS = string(p.Spec.OS.Name)
	}
	for _, c := range append(append([]v1.Container(nil), p.Spec.InitContainers...), p.Spec.Containers...) {
		img, err := catalog.ImageOf(c.Image)
		if err != nil || !img.Windows {
			continue
		}
		podOS = "windows"
		if !img.Version.IsZero() {
			builds = append(builds, img.Version.Build)
		}
	}
	if podOS != nodeOS {
		return "WRONG OS"
	}
	if podOS != "windows" || hostProcess {
		return ""
	}
	host, ok := windows.ParseBuild(n.Labels[v1.LabelWindowsBuild])
	if !ok {
		return "WRONG BUILD"
	}
	for _, b := range builds {
		if !windows.ModeContainerd.Runs(host, b) {
			return "WRONG BUILD"
		}
	}
	return ""
}

// table is a plain-text table whose columns line up across titled groups.
type table struct {
	lines [][]string // a title is a line of one cell
	isRow []bool
}

func (t *table) header(cells ...string) {
	t.lines, t.isRow = append(t.lines, cells), append(t.isRow, true)
}
func (t *table) row(cells ...string) { t.header(cells...) }
func (t *table) title(s string) {
	t.lines, t.isRow = append(t.lines, []string{s}), append(t.isRow, false)
}

func (t *table) print(w io.Writer) {
	var widths []int
	for i, l := range t.lines {
		if !t.isRow[i] {
			continue
		}
		for j, c := range l {
			if j >= len(widths) {
				widths = append(widths, 0)
			}
			widths[j] = max(widths[j], utf8.RuneCountInString(c))
		}
	}
	for i, l := range t.lines {
		if !t.isRow[i] {
			fmt.Fprintf(w, "%s\n", l[0])
			continue
		}
		var b strings.Builder
		b.WriteString("  ")
		for j, c := range l {
			b.WriteString(c)
			if j < len(l)-1 {
				b.WriteString(strings.Repeat(" ", widths[j]-utf8.RuneCountInString(c)+2))
			}
		}
		fmt.Fprintln(w, b.String())
	}
}
