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

import "fmt"

// The targets of the webhook's warnings at apply time, its node inventory
// and kubectl windows-aware upgrade-plan, each at 5,000 nodes.
const (
	targetWarningsP99Ms    = 5.0 // a /warnings review's p99, at most
	targetWarningsRatio    = 0.9 // throughput with warnings on over off, at least
	targetInventoryMiB     = 20  // the node inventory's heap, at most
	targetUpgradePlanSec   = 10  // one plan of 10,000 pods, by tags, at most
	targetUpgradePlanBytes = 500 // ... and its MiB allocated, at most
)

// toolTargets are the targets read from admission.txt (hack/bench.sh's
// BenchmarkWarningsAdmission, BenchmarkInventoryMemory and
// BenchmarkUpgradePlan); none when a run left no such file.
func (r *results) toolTargets() []target {
	var ts []target
	if p99, ok := r.tools.median("WarningsAdmission/warnings=on", "p99-ms"); ok {
		ts = append(ts, target{what: "admission: p99 of a review with warnings on, 5000 nodes (ms)",
			want: fmt.Sprintf("≤ %.0f", targetWarningsP99Ms), got: fmt.Sprintf("%.2f", p99), met: p99 <= targetWarningsP99Ms})
	}
	if x, ok := r.tools.median("WarningsAdmission/warnings=on", "ratio"); ok {
		ts = append(ts, target{what: "admission: throughput with warnings on / off, 5000 nodes",
			want: fmt.Sprintf("≥ %.1fx", targetWarningsRatio), got: fmt.Sprintf("%.2fx", x), met: x >= targetWarningsRatio})
	}
	if mib, ok := r.tools.median("InventoryMemory", "MiB/5000nodes"); ok {
		ts = append(ts, target{what: "admission: the node inventory's memory, 5000 nodes (MiB)",
			want: fmt.Sprintf("≤ %d", targetInventoryMiB), got: fmt.Sprintf("%.1f", mib), met: mib <= targetInventoryMiB})
	}
	if ns, ok := r.tools.median("UpgradePlan/AllPools", "ns/op"); ok {
		sec := ns / 1e9
		ts = append(ts, target{what: "kubectl windows-aware upgrade-plan, 5000 nodes and 10000 pods, tags, pins and agents (s per plan)",
			want: fmt.Sprintf("≤ %d", targetUpgradePlanSec), got: fmt.Sprintf("%.3f", sec), met: sec <= targetUpgradePlanSec})
	}
	if b, ok := r.tools.median("UpgradePlan/AllPools", "B/op"); ok {
		mib := b / (1 << 20)
		ts = append(ts, target{what: "kubectl windows-aware upgrade-plan, 5000 nodes and 10000 pods, tags, pins and agents (MiB allocated per plan)",
			want: fmt.Sprintf("≤ %d", targetUpgradePlanBytes), got: fmt.Sprintf("%.1f", mib), met: mib <= targetUpgradePlanBytes})
	}
	return ts
}
