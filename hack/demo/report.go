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
	"fmt"
	"os"
	"sort"
	"strings"
	"text/tabwriter"

	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/internal/oracle"
)

// report prints where each workload landed, and the oracle's verdict on
// every bound pod.
func (d *demo) report(ws []workload, st *podState) {
	nodes := map[string]*v1.Node{}
	kinds := map[string]int{}
	for _, obj := range d.nodes.GetStore().List() {
		n := obj.(*v1.Node)
		nodes[n.Name] = n
		kinds[nodeKind(n)]++
	}
	fmt.Printf("\nNodes: %d: %s (Windows nodes tainted os=windows:NoSchedule)\n\nNamespaces:\n", len(nodes), counted(kinds))
	for _, set := range d.sets() {
		fmt.Printf("  %-19s %s\n", set.ns, set.about)
	}
	fmt.Println()

	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  WORKLOAD\tSCHEDULER\tPODS\tLANDED ON (OS build ×pods)\tCHECK")
	var pending []string
	for _, w := range ws {
		// The pods' scheduler, not the template's: the cluster-wide
		// opt-in gives the pods of a template that names none the
		// profile's.
		scheduler := w.scheduler
		if pods := st.pods[w.id()]; len(pods) > 0 && pods[0].Spec.SchedulerName != "" {
			scheduler = pods[0].Spec.SchedulerName
		}
		landed, verdicts := map[string]int{}, map[string]int{}
		bound, unbound, reason := 0, 0, ""
		for i := range st.pods[w.id()] {
			p := &st.pods[w.id()][i]
			n := nodes[p.Spec.NodeName]
			if n == nil {
				unbound++
				if msg := st.failed[p.Namespace+"/"+p.Name]; msg != "" {
					reason = msg
				}
				continue
			}
			bound++
			landed[nodeKind(n)]++
			v, err := oracle.Check(d.asOracleSees(p), n)
			if err != nil {
				verdicts[err.Error()]++
			} else if v != oracle.OK {
				verdicts[string(v)]++
			}
		}
		where := counted(landed)
		if unbound > 0 {
			where = strings.TrimPrefix(fmt.Sprintf("%s, Pending ×%d", where, unbound), ", ")
		}
		check := counted(verdicts)
		switch {
		case check != "":
		case unbound > 0:
			check = "pending (reason below)"
			pending = append(pending, fmt.Sprintf("  %s (%s): %s", w.id(), scheduler, orDash(reason)))
		default:
			check = "ok"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%d/%d\t%s\t%s\n", w.id(), scheduler, bound, w.replicas, orDash(where), check)
	}
	tw.Flush()
	if len(pending) > 0 {
		fmt.Printf("\nFailedScheduling (why pods are Pending):\n%s\n", strings.Join(pending, "\n"))
	}
	fmt.Printf("\nCHECK holds each bound pod against its node with an oracle written from docs/windows-facts.md:\n" +
		"\"WRONG OS\" and \"WRONG BUILD\" pods would fail to start on a real node (PodOSNotSupported, HCS error 0xc0370101).\n")
	fmt.Printf("\nTimings:\n")
	for _, line := range d.timeline {
		fmt.Printf("  %s\n", line)
	}
}

// counted prints "a ×2, b ×1" in the order of the keys.
func counted(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		keys[i] = fmt.Sprintf("%s ×%d", k, m[k])
	}
	return strings.Join(keys, ", ")
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
