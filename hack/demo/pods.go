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
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// podState is what waitPods saw of the demo's pods.
type podState struct {
	pods map[string][]v1.Pod // by workload id
	// failed is the latest FailedScheduling message per namespace/pod.
	failed map[string]string
}

// waitPods waits until every pod runs (kwok) or is Pending with a
// FailedScheduling reason, for 4 minutes at most.
func (d *demo) waitPods(ctx context.Context, ws []workload) (*podState, error) {
	want := 0
	for _, w := range ws {
		want += w.replicas
	}
	logf("waiting for %d pods of %d Deployments to be placed", want, len(ws))
	deadline := time.Now().Add(4 * time.Minute)
	var lastPrint time.Time
	for {
		st, err := d.observe(ctx, ws)
		if err != nil {
			return nil, err
		}
		total, bound, running, explained := 0, 0, 0, 0
		for _, pods := range st.pods {
			for _, p := range pods {
				total++
				switch {
				case p.Spec.NodeName != "":
					bound++
					if p.Status.Phase == v1.PodRunning {
						running++
					}
				case st.failed[p.Namespace+"/"+p.Name] != "":
					explained++
				}
			}
		}
		line := fmt.Sprintf("pods bound %d/%d (running %d), pending with a FailedScheduling reason %d", bound, want, running, explained)
		done := total >= want && running+explained >= want
		if done || time.Since(lastPrint) >= 2*time.Second {
			logf("%s", line)
			lastPrint = time.Now()
		}
		if done {
			return st, nil
		}
		if time.Now().After(deadline) {
			logf("gave up waiting after 4 minutes")
			return st, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func (d *demo) observe(ctx context.Context, ws []workload) (*podState, error) {
	st := &podState{pods: map[string][]v1.Pod{}, failed: map[string]string{}}
	byNS := map[string][]workload{}
	for _, w := range ws {
		byNS[w.ns] = append(byNS[w.ns], w)
	}
	for ns, nsWorkloads := range byNS {
		pods, err := d.c.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		for _, w := range nsWorkloads {
			for _, p := range pods.Items {
				if w.selector.Matches(labels.Set(p.Labels)) && p.DeletionTimestamp == nil {
					st.pods[w.id()] = append(st.pods[w.id()], p)
				}
			}
		}
		events, err := d.c.Client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "reason=FailedScheduling"})
		if err != nil {
			return nil, err
		}
		latest := map[string]time.Time{}
		for _, ev := range events.Items {
			key := ns + "/" + ev.InvolvedObject.Name
			at := ev.EventTime.Time
			if at.IsZero() {
				at = ev.LastTimestamp.Time
			}
			if st.failed[key] == "" || at.After(latest[key]) {
				latest[key], st.failed[key] = at, ev.Message
			}
		}
	}
	return st, nil
}
