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

package inventory

import (
	"runtime"
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/windows-aware/windows-aware/internal/synthetic"
)

// maxMiBAt5000 bounds what the inventory of 5,000 nodes, and the node
// informer's store of their projections, may hold.
const maxMiBAt5000 = 20

// heapOf5000 is the heap the informer's store of 5,000 projected
// synthetic nodes and the inventory fed from it hold, in bytes. Each whole
// node is made, projected and dropped in turn, as the informer's
// transform drops it.
func heapOf5000() (uint64, *Inventory, cache.Store) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	store := cache.NewStore(cache.MetaNamespaceKeyFunc)
	inv := New()
	for i := range 5000 {
		obj, _ := Project(synthetic.Node(i))
		_ = store.Add(obj)
		inv.NodeHandler().OnAdd(obj, true)
	}
	inv.Snapshot()
	runtime.GC()
	runtime.ReadMemStats(&after)
	if after.HeapAlloc < before.HeapAlloc {
		return 0, inv, store
	}
	return after.HeapAlloc - before.HeapAlloc, inv, store
}

// TestMemoryAt5000Nodes: the inventory of 5,000 nodes, with its informer's
// store, holds at most maxMiBAt5000 MiB.
func TestMemoryAt5000Nodes(t *testing.T) {
	heap, inv, store := heapOf5000()
	s := inv.Snapshot()
	if s.Nodes != 5000 || len(store.List()) != 5000 {
		t.Fatalf("%d nodes in the inventory, %d in the store, want 5000", s.Nodes, len(store.List()))
	}
	if len(s.Classes) != len(synthetic.Pools) {
		t.Errorf("%d classes, want one per pool: %d", len(s.Classes), len(synthetic.Pools))
	}
	mib := float64(heap) / (1 << 20)
	t.Logf("inventory and store of 5,000 nodes: %.2f MiB", mib)
	if mib > maxMiBAt5000 {
		t.Errorf("%.2f MiB at 5,000 nodes, want at most %d", mib, maxMiBAt5000)
	}
}

// BenchmarkInventoryMemory reports the heap the inventory of 5,000 nodes
// and its informer's store hold (MiB/5000nodes), and what filling them
// costs per run.
func BenchmarkInventoryMemory(b *testing.B) {
	var heap uint64
	for b.Loop() {
		h, inv, store := heapOf5000()
		heap = max(heap, h)
		runtime.KeepAlive(inv)
		runtime.KeepAlive(store)
	}
	b.ReportMetric(float64(heap)/(1<<20), "MiB/5000nodes")
}
