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
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/pager"

	"github.com/windows-aware/windows-aware/pkg/explain"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/publish"
	"github.com/windows-aware/windows-aware/pkg/schedprofile"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// readStatus reads the status from the cluster, a page at a time.
func readStatus(ctx context.Context, client kubernetes.Interface, ns string, since time.Time, limit int) (*Status, error) {
	s := &Status{Pools: []PoolStatus{}, Gated: []GatedPod{}, Refusals: []Refusal{}}
	nodes, err := (&explain.Cluster{Client: client}).Nodes(ctx)
	if err != nil {
		return nil, err
	}
	e, err := statusExplainer(ctx, client, nodes)
	if err != nil {
		return nil, err
	}
	s.Pools = pools(nodes, e.Decider.Catalog())
	if s.Retiring, err = readRetiring(ctx, e, client, ns, nodes); err != nil {
		return nil, err
	}
	if s.DaemonSets, err = readDaemonSets(ctx, e, client, ns); err != nil {
		return nil, err
	}
	if s.KubeletRejected, err = readKubeletRejected(ctx, client, ns, since, limit); err != nil {
		return nil, err
	}

	err = pager.New(func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		return client.CoreV1().Pods(ns).List(ctx, opts)
	}).EachListItem(ctx, metav1.ListOptions{LabelSelector: wellknown.LabelGated}, func(obj runtime.Object) error {
		pod := obj.(*v1.Pod)
		if !publish.Gated(pod) {
			return nil
		}
		s.Gated = append(s.Gated, GatedPod{Namespace: pod.Namespace, Name: pod.Name, Since: pod.CreationTimestamp, Images: podneeds.ImageRefs(pod)})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing gated pods: %w", err)
	}
	slices.SortFunc(s.Gated, func(a, b GatedPod) int { return a.Since.Compare(b.Since.Time) })

	err = pager.New(func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		return client.CoreV1().Events(ns).List(ctx, opts)
	}).EachListItem(ctx, metav1.ListOptions{FieldSelector: "type=Warning,involvedObject.kind=Pod"}, func(obj runtime.Object) error {
		ev := obj.(*v1.Event)
		last := lastSeen(ev)
		if last.Time.Before(since) {
			return nil
		}
		if ev.Reason == wellknown.EventImageBuildsChanged {
			s.BuildsChanged = addChangedTag(s.BuildsChanged, ChangedTag{Image: changedImage(ev.Message), Namespace: ev.InvolvedObject.Namespace,
				Pod: ev.InvolvedObject.Name, Message: ev.Message, Last: last})
			return nil
		}
		if !slices.Contains(RefusalReasons, ev.Reason) {
			return nil
		}
		s.Refusals = append(s.Refusals, Refusal{Namespace: ev.InvolvedObject.Namespace, Pod: ev.InvolvedObject.Name,
			Reason: ev.Reason, Message: ev.Message, Count: ev.Count, Last: last})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing events: %w", err)
	}
	slices.SortFunc(s.Refusals, func(a, b Refusal) int { return b.Last.Compare(a.Last.Time) })
	slices.SortFunc(s.BuildsChanged, func(a, b ChangedTag) int { return b.Last.Compare(a.Last.Time) })
	if len(s.BuildsChanged) > limit {
		s.BuildsChanged = s.BuildsChanged[:limit]
	}
	if len(s.Refusals) > limit {
		s.Refusals = s.Refusals[:limit]
	}
	return s, nil
}

// statusExplainer is the decision of the scheduler's profile that
// SchedulerOptions' zero value finds (the chart's ConfigMap, explain's
// without flags), else of the default args, on nodes.
func statusExplainer(ctx context.Context, client kubernetes.Interface, nodes []*v1.Node) (*explain.Explainer, error) {
	cluster := &explain.Cluster{Client: client}
	profile, _, err := (&SchedulerOptions{}).profile(ctx, cluster, io.Discard)
	if err != nil {
		if profile, err = schedprofile.Load("", ""); err != nil {
			return nil, err
		}
	}
	e, err := explain.NewExplainer(ctx, profile)
	if err != nil {
		return nil, err
	}
	e.Nodes = nodes
	e.RuntimeClass = explain.RuntimeClasses(nil, cluster)
	return e, nil
}

// readRetiring counts the retiring nodes and judges the pods on them by
// the scheduler's profile (statusExplainer): those that no node but a
// retiring one runs stay. Nil when no node is retiring.
func readRetiring(ctx context.Context, e *explain.Explainer, client kubernetes.Interface, ns string, nodes []*v1.Node) (*RetiringStatus, error) {
	onRetiring := map[string]bool{}
	for _, n := range nodes {
		if podneeds.Retiring(n) {
			onRetiring[n.Name] = true
		}
	}
	if len(onRetiring) == 0 {
		return nil, nil
	}
	r := &RetiringStatus{Nodes: len(onRetiring), Staying: []StayingPod{}}
	groups := explain.GroupNodes(nodes)
	err := pager.New(func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		return client.CoreV1().Pods(ns).List(ctx, opts)
	}).EachListItem(ctx, metav1.ListOptions{}, func(obj runtime.Object) error {
		pod := obj.(*v1.Pod)
		if !onRetiring[pod.Spec.NodeName] || pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed || podneeds.DaemonSetPod(pod) {
			return nil
		}
		r.Pods++
		if rr := e.StaysOnRetiring(ctx, pod, groups); rr != nil && rr.Stays {
			r.Staying = append(r.Staying, StayingPod{Namespace: pod.Namespace, Name: pod.Name, Node: pod.Spec.NodeName, Why: explain.WhyStays(rr, e.Decider.Catalog())})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing the pods on retiring nodes: %w", err)
	}
	slices.SortFunc(r.Staying, func(a, b StayingPod) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return r, nil
}

// changedImage is the tag an ImageBuildsChanged Event names first, quoted
// ("tag \"…\" now lists …"); the message itself when it names none.
func changedImage(msg string) string {
	if _, rest, ok := strings.Cut(msg, `"`); ok {
		if image, _, ok := strings.Cut(rest, `"`); ok {
			return image
		}
	}
	return msg
}

// addChangedTag adds t, keeping one entry per image: the newest.
func addChangedTag(tags []ChangedTag, t ChangedTag) []ChangedTag {
	i := slices.IndexFunc(tags, func(o ChangedTag) bool { return o.Image == t.Image })
	switch {
	case i < 0:
		return append(tags, t)
	case tags[i].Last.Before(&t.Last):
		tags[i] = t
	}
	return tags
}

// lastSeen is when an Event last happened, in whichever field its
// reporter filled.
func lastSeen(ev *v1.Event) metav1.Time {
	switch {
	case ev.Series != nil && !ev.Series.LastObservedTime.IsZero():
		return metav1.Time{Time: ev.Series.LastObservedTime.Time}
	case !ev.LastTimestamp.IsZero():
		return ev.LastTimestamp
	case !ev.EventTime.IsZero():
		return metav1.Time{Time: ev.EventTime.Time}
	}
	return ev.CreationTimestamp
}

// pools counts the nodes of each pool and platform (explain.GroupNodes),
// naming builds by the profile's catalog (its extraReleases too).
func pools(nodes []*v1.Node, catalog *windows.Catalog) []PoolStatus {
	var out []PoolStatus
	for _, g := range explain.GroupNodes(nodes) {
		p := PoolStatus{Pool: g.Pool, OS: g.Platform.OS, Build: g.Platform.Build, Arch: g.Platform.Arch, Nodes: len(g.Nodes),
			Release: catalog.ReleaseName(g.Platform.Build)}
		for _, n := range g.Nodes {
			if ready(n) {
				p.Ready++
			}
			for _, t := range n.Spec.Taints {
				if s := t.ToString(); !slices.Contains(p.Taints, s) && len(p.Taints) < maxTaints {
					p.Taints = append(p.Taints, s)
				}
			}
		}
		out = append(out, p)
	}
	return out
}

// maxTaints bounds the taints shown per pool.
const maxTaints = 5

func ready(n *v1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == v1.NodeReady {
			return c.Status == v1.ConditionTrue
		}
	}
	return false
}
