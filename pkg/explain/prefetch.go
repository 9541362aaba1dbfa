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
	"context"
	"fmt"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// prefetchers is how many pods' registries the explainer asks at once.
const prefetchers = 8

// prefetch asks the registries of every pod at once, prefetchers at a
// time, before the report reads them one by one: with --resolve, a report
// of a hundred workloads then waits about as long as its slowest
// registry, not as long as all of them in turn. What it learns stays in
// the facts; errors are read again, from the facts, where the report
// decides each pod.
func (e *Explainer) prefetch(ctx context.Context, pods []*v1.Pod) {
	if e.Resolve == nil || len(pods) < 2 {
		return
	}
	// Each pod asks under a UID of its own: a template has none, and the
	// facts tell their waiters apart by UID, namespace and name, which
	// the templates of one namespace may share ("").
	work := make(chan *v1.Pod)
	var wg sync.WaitGroup
	for range min(prefetchers, len(pods)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for pod := range work {
				_ = e.Resolve(ctx, pod)
			}
		}()
	}
	for i, pod := range pods {
		asked := *pod
		asked.UID = types.UID(fmt.Sprintf("prefetch-%d", i))
		work <- &asked
	}
	close(work)
	wg.Wait()
}
