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

package kubectlcmd

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/pager"

	"github.com/windows-aware/windows-aware/pkg/explain"
)

// readDaemonSets judges every DaemonSet of the namespace (every namespace
// with "") as its controller places it, and returns those that need a
// fix: pods on nodes their images cannot run, or Windows daemons that
// reach no Windows node. A DaemonSet is judged by its template, so the
// report is clean as soon as a fix is applied, before its pods are moved.
func readDaemonSets(ctx context.Context, e *explain.Explainer, client kubernetes.Interface, ns string) ([]explain.DaemonSetReport, error) {
	out := []explain.DaemonSetReport{}
	var objects []explain.Object
	err := pager.New(func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		return client.AppsV1().DaemonSets(ns).List(ctx, opts)
	}).EachListItem(ctx, metav1.ListOptions{}, func(obj runtime.Object) error {
		objects = append(objects, explain.Object{Source: explain.LiveSource, Object: obj, Live: true})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing daemonsets: %w", err)
	}
	templates, _, _ := explain.Inputs(objects)
	for _, t := range templates {
		r, err := e.JudgeDaemonSet(ctx, t)
		if err != nil {
			return nil, err
		}
		if r.Finding() {
			out = append(out, *r)
		}
	}
	slices.SortFunc(out, func(a, b explain.DaemonSetReport) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return out, nil
}

// writeDaemonSets writes the DaemonSets that need a fix, each with the
// command that applies it.
func writeDaemonSets(w io.Writer, ds []explain.DaemonSetReport) {
	if len(ds) == 0 {
		fmt.Fprintln(w, "No DaemonSet goes to a node its images cannot run, and every Windows DaemonSet reaches a Windows node.")
		return
	}
	fmt.Fprintln(w, "DAEMONSET\tOS\tNODES\tWRONG\tWHY")
	for _, d := range ds {
		fmt.Fprintf(w, "%s/%s\t%s\t%d\t%d\t%s\n", d.Namespace, d.Name, dash(d.OS), d.Nodes, d.Wrong, d.Why)
	}
	// The fixes follow the table, one a line, to be copied whole.
	for _, d := range ds {
		if d.Fix != "" {
			fmt.Fprintf(w, "fix %s/%s: %s\n", d.Namespace, d.Name, strings.ReplaceAll(d.Fix, "\t", " "))
		}
	}
}
