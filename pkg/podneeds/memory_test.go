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

package podneeds_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// TestDeciderForgetsPodsImages: the decider of a long-lived process (the
// scheduler, the webhook, the gate remover) keeps nothing of a pod's image
// strings that grows with them once the pod is gone. 100 pods with unique
// 1.2 MiB images (Kubernetes sets no limit on an image) leave the heap
// where 100 pods with short unique images leave it.
func TestDeciderForgetsPodsImages(t *testing.T) {
	const pods = 100
	dr := decider(t)
	growth := func(image func(i int) string) int64 {
		before := heapInUse()
		for i := range pods {
			p := pod(image(i), img2022)
			dr.DeclaredOS(p)
			_ = dr.Decide(p, nil).Conflict()
		}
		grown := heapInUse() - before
		runtime.KeepAlive(dr) // the process's decider lives on
		return grown
	}
	short := growth(func(i int) string { return fmt.Sprintf("acme/app:v%d", i) })
	huge := growth(func(i int) string { return fmt.Sprintf("acme/app:%d-%s", i, strings.Repeat("x", 1200<<10)) })
	t.Logf("heap after %d pods: short images %+d KiB, 1.2 MiB images %+d KiB", pods, short>>10, huge>>10)
	if huge > short+1<<20 {
		t.Errorf("%d pods with 1.2 MiB images left the heap %d KiB larger, against %d KiB for short images", pods, huge>>10, short>>10)
	}
}

func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}
