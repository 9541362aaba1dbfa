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

package explain

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/internal/synthetic"
)

// upgradeBenchCluster is the synthetic cluster of 5,000 nodes (70% Linux,
// 10% each Windows Server 2019, 2022 and 2025) with 10,000 pods of the
// benchmarks' mix, bound to nodes the oracle lets run them, as 1,000
// workloads of ten pods each; half of the ltsc2019 and ltsc2022 ones are
// pinned to their nodes' build by the guide's nodeSelector, and the
// HostProcess ones and a quarter of the ltsc2022 ones are DaemonSets, so
// that pins and agents' coverage are read too.
func upgradeBenchCluster(b *testing.B) ([]*v1.Node, []*Workload) {
	b.Helper()
	const nodeCount, workloadCount, podsPer = 5000, 1000, 10
	nodes := synthetic.Nodes(nodeCount)
	nodeByName := make(map[string]*v1.Node, len(nodes))
	for _, n := range nodes {
		nodeByName[n.Name] = n
	}
	allowed := map[string][]string{}
	for _, k := range synthetic.Kinds {
		for _, n := range nodes {
			if k.Allows(n) {
				allowed[k.Name] = append(allowed[k.Name], n.Name)
			}
		}
	}
	workloads := make([]*Workload, 0, workloadCount)
	next := map[string]int{}
	for w := range workloadCount {
		k := synthetic.KindOf(w)
		name := fmt.Sprintf("%s-%04d", k.Name, w)
		kind := "Deployment"
		if w%10 == 9 || w%40 == 23 {
			kind = "DaemonSet"
		}
		candidates := allowed[k.Name]
		first := nodeByName[candidates[next[k.Name]%len(candidates)]]
		pin := func(p *v1.Pod) {
			if b := first.Labels[v1.LabelWindowsBuild]; b != "" && (w%20 == 1 || w%20 == 3) {
				p.Spec.NodeSelector = map[string]string{v1.LabelWindowsBuild: b}
			}
		}
		wl := &Workload{Kind: kind, Namespace: fmt.Sprintf("team-%02d", w%20), Name: name, Template: k.Pod("", synthetic.WindowsAware)}
		wl.Template.Namespace = wl.Namespace
		pin(wl.Template)
		for p := range podsPer {
			pod := k.Pod(fmt.Sprintf("%s-%d", name, p), synthetic.WindowsAware)
			pod.Namespace = wl.Namespace
			pod.Spec.NodeName = candidates[next[k.Name]%len(candidates)]
			pin(pod)
			next[k.Name]++
			wl.Pods = append(wl.Pods, pod)
		}
		workloads = append(workloads, wl)
	}
	return nodes, workloads
}

// BenchmarkUpgradePlan plans the synthetic cluster by tags alone: every
// Windows pool to 2025, and the what-if of the 2022 pool becoming 2025.
// The goal is 10 s and 500 MiB per plan at most.
func BenchmarkUpgradePlan(b *testing.B) {
	nodes, workloads := upgradeBenchCluster(b)
	e := testExplainer(b)
	target := build(b, "2025")
	for _, bc := range []struct{ name, pool string }{
		{"AllPools", ""},
		{"PoolWhatIf", "agentpool=win2022"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				plan, err := e.PlanUpgrade(b.Context(), UpgradeInput{Target: target, Pool: bc.pool, Nodes: nodes, Workloads: workloads})
				if err != nil {
					b.Fatal(err)
				}
				if bc.pool == "" && (plan.Summary.Rebuild == 0 || plan.Summary.Retarget == 0 || len(plan.Agents) == 0) {
					b.Fatalf("summary %+v, %d agent(s): the ltsc2019 workloads need a rebuild, the pinned ltsc2022 ones a retarget, and the DaemonSets are agents", plan.Summary, len(plan.Agents))
				}
				if bc.pool != "" && len(plan.WhatIf.NewWorkloads) == 0 {
					b.Fatal("no workload lands on the pool: the ltsc2025 Deployments must")
				}
			}
		})
	}
}
