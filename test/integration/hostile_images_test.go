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

package integration

import (
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/windows-aware/windows-aware/pkg/plugins/windowsawarepreemption"
)

// TestSchedulerForgetsHugeImages: a tenant who creates and deletes pods of
// the profile with unique megabyte-long image strings (Kubernetes sets no
// limit on an image) leaves the scheduler's heap where pods with short
// unique images leave it. Before the decider refused references longer
// than any that parses, and kept only those that parse, 80 such pods left
// the scheduler 835 MiB larger.
func TestSchedulerForgetsHugeImages(t *testing.T) {
	e := requireCluster(t)
	ns := e.namespace()
	const profile = "windows-aware-huge-images"
	sched := e.runScheduler("scheduler-huge-images", t.TempDir(), e.c.SchedulerKubeconfig, windowsAwareProfile(profile, windowsawarepreemption.Name, map[string]any{}))
	scrape := newScraper(t, e.c)
	// heap is the scheduler's heap in use, the least of a few reads: what
	// a collection leaves, without the garbage of the last pods.
	heap := func() float64 {
		least := -1.0
		for range 10 {
			if families, err := scrape.tryScrape(sched); err == nil {
				if v := gauge(families, "go_memstats_heap_inuse_bytes", nil); least < 0 || v < least {
					least = v
				}
			}
			time.Sleep(500 * time.Millisecond)
		}
		if least < 0 {
			t.Fatal("the scheduler's /metrics never answered")
		}
		return least
	}
	const pods = 100
	round := func(name string, image func(i int) string) float64 {
		before := heap()
		for i := range pods {
			p := newPod(fmt.Sprintf("%s-%d", name, i), profile, image(i))
			e.createPod(ns, p)
			e.waitAttempted(ns, p.Name, time.Minute)
			if err := e.client.CoreV1().Pods(ns).Delete(e.ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
				t.Fatal(err)
			}
		}
		grown := heap() - before
		t.Logf("%s: the scheduler's heap %+.1f MiB after %d pods created and deleted", name, grown/(1<<20), pods)
		return grown
	}
	short := round("short", func(i int) string { return fmt.Sprintf("acme/app:v%d", i) })
	huge := round("huge", func(i int) string { return fmt.Sprintf("acme/app:%d-%s", i, strings.Repeat("x", 1100<<10)) })
	if huge > short+64<<20 {
		t.Errorf("%d pods with 1.1 MiB images left the scheduler's heap %.0f MiB larger, against %.0f MiB for short images",
			pods, huge/(1<<20), short/(1<<20))
	}
}

// waitAttempted waits until the scheduler has tried the pod: bound, or
// its PodScheduled condition set.
func (e *env) waitAttempted(ns, name string, timeout time.Duration) {
	e.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		p := e.getPod(ns, name)
		if p.Spec.NodeName != "" {
			return
		}
		for _, c := range p.Status.Conditions {
			if c.Type == v1.PodScheduled {
				return
			}
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("the scheduler did not try pod %s/%s in %s", ns, name, timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
