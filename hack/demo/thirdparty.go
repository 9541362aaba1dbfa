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
	"strings"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/windows-aware/windows-aware/pkg/explain"
	"github.com/windows-aware/windows-aware/pkg/inventory"
	"github.com/windows-aware/windows-aware/pkg/publish"
)

// thirdPartyNS holds what a third party's charts install as they come
// (hack/demo/workloads/third-party.yaml). Its DaemonSets are created but
// run no pods: the demo runs no DaemonSet controller, and 5,000 nodes
// would mean thousands of daemons. They are counted instead, placed as the
// controller places them, by the judge kubectl windows-aware status uses.
const thirdPartyNS = "third-party"

// legacyImage is an image of a build no pool of the demo runs, for the
// warning at apply time.
const legacyImage = "mcr.microsoft.com/windows/servercore:ltsc2016"

// reportThirdParty prints where the third party's DaemonSets go as they
// come, what template mode writes into them and the Deployment with the
// cluster-wide opt-in on, where they go then, and the warning a workload
// no pool runs gets at apply time. The demo runs no admission webhook:
// what the templates and warnings webhooks would answer is computed by
// the same pkg/publish functions they call, and labelled so.
func (d *demo) reportThirdParty(ctx context.Context) error {
	profile, err := explain.LoadProfile(d.schedulerConfig, "")
	if err != nil {
		return err
	}
	e, err := explain.NewExplainer(ctx, profile)
	if err != nil {
		return err
	}
	inv := inventory.New()
	for _, obj := range d.nodes.GetStore().List() {
		n := obj.(*v1.Node)
		e.Nodes = append(e.Nodes, n)
		inv.SetNode(n)
	}
	dss, err := d.c.Client.AppsV1().DaemonSets(thirdPartyNS).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	deploys, err := d.c.Client.AppsV1().Deployments(thirdPartyNS).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	judge := func(ds *appsv1.DaemonSet) (*explain.DaemonSetReport, error) {
		templates, _, _ := explain.Inputs([]explain.Object{{Source: explain.LiveSource, Object: ds, Live: true}})
		return e.JudgeDaemonSet(ctx, templates[0])
	}

	fmt.Printf("\nThird-party DaemonSets as they come (placed as the DaemonSet controller places them; counted, not run):\n")
	for i := range dss.Items {
		r, err := judge(&dss.Items[i])
		if err != nil {
			return err
		}
		printDaemonSet(r)
	}
	fmt.Printf("  (kubectl windows-aware status -n %s lists them, with the fixes above)\n", thirdPartyNS)

	pub, err := publish.New(profile.Name, profile.Args)
	if err != nil {
		return err
	}
	fmt.Printf("\nWith the cluster-wide opt-in and template mode on: what the /templates webhook writes\n" +
		"(pkg/publish PublishTemplate, called directly: the demo runs no admission webhook):\n")
	for i := range deploys.Items {
		w := deploys.Items[i].DeepCopy()
		rec, outcome, warning := pub.PublishTemplate(w, nil)
		fmt.Printf("  deployment/%s: %s %s%s\n", w.Name, outcome, orDash(rec.String()), prefixed("; warning: ", warning))
	}
	for i := range dss.Items {
		w := dss.Items[i].DeepCopy()
		rec, outcome, warning := pub.PublishTemplate(w, nil)
		wrote := rec.String()
		if outcome == publish.OutcomeSkipped {
			wrote = "(its template selects its OS itself; template mode never writes tolerations)"
		}
		fmt.Printf("  daemonset/%s: %s %s%s\n", w.Name, outcome, wrote, prefixed("; warning: ", warning))
		r, err := judge(w)
		if err != nil {
			return err
		}
		if r.Finding() && r.Patch != "" {
			// Template mode never writes tolerations (who may run
			// where is the workload's to say): the report's patch does.
			if w, err = mergePatch(w, r.Patch); err != nil {
				return err
			}
			fmt.Printf("    still wrong: %s\n    applying the report's fix: %s\n", r.Why, r.Fix)
			if r, err = judge(w); err != nil {
				return err
			}
		}
		printDaemonSet(r)
	}

	warner, err := publish.NewWarner(profile.Name, profile.Args, inv, nil)
	if err != nil {
		return err
	}
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: thirdPartyNS}, Spec: v1.PodSpec{Containers: []v1.Container{{Name: "agent", Image: legacyImage}}}}
	fmt.Printf("\nApplying a workload no pool runs (Deployment legacy-agent, %s): what the warnings webhook answers\n"+
		"(pkg/publish Warner.Warnings, called directly: the demo runs no admission webhook):\n", legacyImage)
	for _, line := range warner.Warnings("Deployment "+thirdPartyNS+"/legacy-agent", pod) {
		fmt.Printf("  Warning: %s\n", line)
	}
	return nil
}

// printDaemonSet prints one DaemonSet's placement, and its fix.
func printDaemonSet(r *explain.DaemonSetReport) {
	verdict := "ok"
	if r.Finding() {
		verdict = r.Why
	}
	fmt.Printf("  %s/%s (%s): a pod on %d node(s), %d wrong: %s\n", r.Namespace, r.Name, orDash(r.OS), r.Nodes, r.Wrong, verdict)
	if r.Finding() && r.Fix != "" {
		fmt.Printf("    fix: %s\n", r.Fix)
	}
}

// mergePatch applies a JSON merge patch to a DaemonSet, as the API server
// does for kubectl patch --type merge.
func mergePatch(ds *appsv1.DaemonSet, patch string) (*appsv1.DaemonSet, error) {
	orig, err := json.Marshal(ds)
	if err != nil {
		return nil, err
	}
	patched, err := jsonpatch.MergePatch(orig, []byte(patch))
	if err != nil {
		return nil, err
	}
	out := &appsv1.DaemonSet{}
	return out, json.Unmarshal(patched, out)
}

func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + strings.TrimSpace(s)
}
