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
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/windows-aware/windows-aware/pkg/explain"
	"github.com/windows-aware/windows-aware/pkg/schedprofile"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// thirdPartyNS holds what a third party's charts install as they come
// (hack/demo/workloads/third-party.yaml), under the stock scheduler,
// before the webhook is registered. optInNS holds the same charts applied
// with kubectl once it is, with the cluster-wide opt-in and template mode
// on. Their DaemonSets are created but run no pods: the demo runs no
// DaemonSet controller, and 5,000 nodes would mean thousands of daemons.
// They are counted instead, placed as the controller places them, by the
// judge kubectl windows-aware status uses.
const (
	thirdPartyNS = "third-party"
	optInNS      = "third-party-opt-in"
)

// profileName is the windows-aware profile of the shipped configuration.
const profileName = "windows-aware"

// legacyImage is the image of hack/demo/workloads/legacy-agent.yaml, of a
// build no pool of the demo runs.
const legacyImage = "mcr.microsoft.com/windows/servercore:ltsc2016"

// applyThroughWebhook applies, once the webhook is registered, the third
// party's charts and then a workload no pool runs into optInNS with
// bin/tools/kubectl, reads back what the webhook wrote, and applies the
// fix the judge gives for a DaemonSet template mode leaves wrong. It
// returns the Deployments, whose pods are to be waited for.
func (d *demo) applyThroughWebhook(ctx context.Context) ([]workload, error) {
	d.optIn = &strings.Builder{}
	out := d.optIn
	fmt.Fprintf(out, "\nThe same charts, applied in namespace %s (kubectl's output as it printed it):\n", optInNS)
	logf("applying %s with kubectl: the same charts, through the webhook", optInNS)
	if err := d.kubectlShown(ctx, out, "apply", "-n", optInNS, "-f", "hack/demo/workloads/third-party.yaml"); err != nil {
		return nil, err
	}
	judge, err := d.judge(ctx)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "\nRead back from the API server:\n")
	deploys, err := d.c.Client.AppsV1().Deployments(optInNS).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for i := range deploys.Items {
		printTemplate(out, "deployment", &deploys.Items[i].ObjectMeta, &deploys.Items[i].Spec.Template.Spec)
	}
	dss, err := d.c.Client.AppsV1().DaemonSets(optInNS).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var wrong []*explain.DaemonSetReport
	for i := range dss.Items {
		ds := &dss.Items[i]
		printTemplate(out, "daemonset", &ds.ObjectMeta, &ds.Spec.Template.Spec)
		r, err := judge(ds)
		if err != nil {
			return nil, err
		}
		printDaemonSet(out, r)
		if r.Finding() && r.Patch != "" {
			wrong = append(wrong, r)
		}
	}
	// Template mode never writes tolerations (who may run where is the
	// workload's to say): the judge's patch does, applied as its fix
	// says.
	for _, r := range wrong {
		fmt.Fprintf(out, "\nThe fix of %s/%s, applied:\n", r.Namespace, r.Name)
		if err := d.kubectlShown(ctx, out, "-n", r.Namespace, "patch", "daemonset", r.Name, "--type", "merge", "-p", r.Patch); err != nil {
			return nil, err
		}
		ds, err := d.c.Client.AppsV1().DaemonSets(r.Namespace).Get(ctx, r.Name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		if r, err = judge(ds); err != nil {
			return nil, err
		}
		printDaemonSet(out, r)
	}

	logf("applying %s with kubectl: a workload no pool runs", optInNS)
	fmt.Fprintf(out, "\nA workload no pool runs (%s), applied:\n", legacyImage)
	if err := d.kubectlShown(ctx, out, "apply", "-n", optInNS, "-f", "hack/demo/workloads/legacy-agent.yaml"); err != nil {
		return nil, err
	}
	legacy, err := d.c.Client.AppsV1().Deployments(optInNS).Get(ctx, "legacy-agent", metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "\nRead back from the API server:\n")
	printTemplate(out, "deployment", &legacy.ObjectMeta, &legacy.Spec.Template.Spec)
	if deploys, err = d.c.Client.AppsV1().Deployments(optInNS).List(ctx, metav1.ListOptions{}); err != nil {
		return nil, err
	}
	var ws []workload
	for i := range deploys.Items {
		w, err := workloadOf(&deploys.Items[i])
		if err != nil {
			return nil, err
		}
		ws = append(ws, *w)
	}
	return ws, nil
}

// kubectlShown runs kubectl and writes the command, as a reader types it
// from the repository's root, and what kubectl printed, verbatim.
func (d *demo) kubectlShown(ctx context.Context, out *strings.Builder, args ...string) error {
	printed, err := d.kubectl(ctx, args...)
	if err != nil {
		return err
	}
	shown := make([]string, len(args))
	for i, a := range args {
		shown[i] = a
		if strings.ContainsAny(a, ` "{}'`) {
			shown[i] = "'" + a + "'"
		}
	}
	fmt.Fprintf(out, "$ kubectl %s\n%s", strings.Join(shown, " "), printed)
	return nil
}

// printTemplate writes the OS selector of a workload's pod template and
// the record of what the templates webhook wrote into it.
func printTemplate(out *strings.Builder, kind string, meta *metav1.ObjectMeta, spec *v1.PodSpec) {
	selector, _ := json.Marshal(spec.NodeSelector)
	record := meta.Annotations[wellknown.AnnotationTemplate]
	switch {
	case record != "":
	case spec.NodeSelector[v1.LabelOSStable] != "":
		record = "none: its template selects its OS itself, which the webhook leaves as written"
	default:
		record = "none"
	}
	fmt.Fprintf(out, "  %s/%s: nodeSelector %s, %s %s\n", kind, meta.Name, selector, wellknown.AnnotationTemplate, record)
}

// judge returns the judge of DaemonSets kubectl windows-aware status
// uses, over the demo's nodes, with the args the scheduler runs with.
func (d *demo) judge(ctx context.Context) (func(*appsv1.DaemonSet) (*explain.DaemonSetReport, error), error) {
	if d.judgeDaemonSet != nil {
		return d.judgeDaemonSet, nil
	}
	profile, err := schedprofile.Load(d.schedulerConfig, "")
	if err != nil {
		return nil, err
	}
	e, err := explain.NewExplainer(ctx, profile)
	if err != nil {
		return nil, err
	}
	for _, obj := range d.nodes.GetStore().List() {
		e.Nodes = append(e.Nodes, obj.(*v1.Node))
	}
	d.judgeDaemonSet = func(ds *appsv1.DaemonSet) (*explain.DaemonSetReport, error) {
		templates, _, _ := explain.Inputs([]explain.Object{{Source: explain.LiveSource, Object: ds, Live: true}})
		return e.JudgeDaemonSet(ctx, templates[0])
	}
	return d.judgeDaemonSet, nil
}

// reportThirdParty prints where the third party's DaemonSets go as they
// come, then what applying the same charts through the webhook printed
// and wrote, the pods the opt-in gave the profile, and the warnings
// kubectl printed for a workload no pool runs.
func (d *demo) reportThirdParty(ctx context.Context) error {
	judge, err := d.judge(ctx)
	if err != nil {
		return err
	}
	dss, err := d.c.Client.AppsV1().DaemonSets(thirdPartyNS).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nThird-party DaemonSets as they come (placed as the DaemonSet controller places them; counted, not run):\n")
	for i := range dss.Items {
		r, err := judge(&dss.Items[i])
		if err != nil {
			return err
		}
		printDaemonSet(&b, r)
	}
	fmt.Fprintf(&b, "  (kubectl windows-aware status -n %s lists them, with the fixes above)\n", thirdPartyNS)
	fmt.Print(b.String())
	if d.optIn == nil {
		return nil
	}

	a := d.admission
	policies := map[string]bool{}
	var hooks []string
	for _, w := range a.mutating.Webhooks {
		hooks = append(hooks, strings.TrimSuffix(w.Name, ".windows-aware.x-k8s.io")+" "+pathOf(*w.ClientConfig.URL))
		policies[string(*w.FailurePolicy)] = true
	}
	mutating := fmt.Sprintf("  MutatingWebhookConfiguration %s: %s\n", a.mutating.Name, strings.Join(hooks, ", "))
	hooks = nil
	for _, w := range a.validating.Webhooks {
		hooks = append(hooks, strings.TrimSuffix(w.Name, ".windows-aware.x-k8s.io")+" "+pathOf(*w.ClientConfig.URL))
		policies[string(*w.FailurePolicy)] = true
	}
	validating := fmt.Sprintf("  ValidatingWebhookConfiguration %s: %s\n", a.validating.Name, strings.Join(hooks, ", "))
	fmt.Printf("\nThen the cluster-wide opt-in and template mode on: bin/admission serves %s (TLS, a CA of the demo's),\n"+
		"registered by URL as the chart registers it with publish.clusterWideOptIn, publish.templates.enabled and warnings.enabled (failurePolicy %s):\n%s%s",
		a.hook.URL, strings.Join(sortedKeys(policies), ", "), mutating, validating)
	fmt.Print(d.optIn.String())
	return d.printOptedInPods(ctx)
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// printOptedInPods prints the scheduler and publish record of the pods
// of optInNS's Deployments, read back from the API server.
func (d *demo) printOptedInPods(ctx context.Context) error {
	deploys, err := d.c.Client.AppsV1().Deployments(optInNS).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	pods, err := d.c.Client.CoreV1().Pods(optInNS).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	fmt.Printf("\nThe pods of %s, read back (their Deployments name no scheduler):\n", optInNS)
	for _, dep := range deploys.Items {
		sel, err := metav1.LabelSelectorAsSelector(dep.Spec.Selector)
		if err != nil {
			return err
		}
		seen := map[string]int{}
		for _, p := range pods.Items {
			if sel.Matches(labels.Set(p.Labels)) {
				seen[fmt.Sprintf("schedulerName %s, %s %s", p.Spec.SchedulerName, wellknown.AnnotationPublished, orDash(p.Annotations[wellknown.AnnotationPublished]))]++
			}
		}
		keys := make([]string, 0, len(seen))
		for k := range seen {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Printf("  deployment/%s: %d pod(s): %s\n", dep.Name, seen[k], k)
		}
	}
	return nil
}

// pathOf is the path of a webhook's URL.
func pathOf(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	return u.Path
}

// printDaemonSet writes one DaemonSet's placement, and its fix.
func printDaemonSet(out *strings.Builder, r *explain.DaemonSetReport) {
	verdict := "ok"
	if r.Finding() {
		verdict = r.Why
	}
	fmt.Fprintf(out, "  %s/%s (%s): a pod on %d node(s), %d wrong: %s\n", r.Namespace, r.Name, orDash(r.OS), r.Nodes, r.Wrong, verdict)
	if r.Finding() && r.Fix != "" {
		fmt.Fprintf(out, "    fix: %s\n", r.Fix)
	}
}
