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
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/pager"

	"github.com/windows-aware/windows-aware/pkg/explain"
	"github.com/windows-aware/windows-aware/pkg/imagefacts"
	"github.com/windows-aware/windows-aware/pkg/imageinspect"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/publish"
	"github.com/windows-aware/windows-aware/pkg/safetext"
	"github.com/windows-aware/windows-aware/pkg/ungate"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// RefusalReasons are the Event reasons with which the scheduler, publish
// mode and its gate controller tell that a pod was not placed, or not yet.
var RefusalReasons = []string{
	"FailedScheduling", // the scheduler's own, for every profile
	"AutoscalerBlind",  // the scheduler: no pool of the pod's build, and autoscalers cannot see why
	imagefacts.EventImagePlatformsUnknown,
	ungate.EventPlatformConflict,
	ungate.EventPublishRefused,
}

// Status is what kubectl windows-aware status reports.
type Status struct {
	// Pools are the cluster's nodes by pool and platform.
	Pools []PoolStatus `json:"pools"`
	// Gated are the pods that publish mode holds until their images'
	// platforms are known.
	Gated []GatedPod `json:"gated"`
	// Refusals are the newest Warning Events of RefusalReasons.
	Refusals []Refusal `json:"refusals"`
	// Retiring counts the nodes labelled retiring and the pods on them;
	// nil when no node is.
	Retiring *RetiringStatus `json:"retiring,omitempty"`
	// BuildsChanged are the tags whose Windows builds changed since they
	// were last read, newest first, from the scheduler's recent
	// ImageBuildsChanged Events.
	BuildsChanged []ChangedTag `json:"buildsChanged,omitempty"`
	// DaemonSets are those whose pods go to nodes their images cannot
	// run, or that run Windows pods and reach no Windows node, each with
	// its fix (explain.JudgeDaemonSet).
	DaemonSets []explain.DaemonSetReport `json:"daemonSets"`
	// KubeletRejected are the pods their node's kubelet rejected for want
	// of room (OutOfcpu …) since --since, by the scheduler that bound them.
	KubeletRejected KubeletRejected `json:"kubeletRejected"`
}

// ChangedTag is a tag whose Windows builds changed, as the Event of the
// first pod placed by its new builds tells it.
type ChangedTag struct {
	Image     string      `json:"image"`
	Namespace string      `json:"namespace"`
	Pod       string      `json:"pod"`
	Message   string      `json:"message"`
	Last      metav1.Time `json:"last"`
}

// RetiringStatus is the nodes labelled podneeds.LabelRetiring and the pods
// on them (of the namespace, or of every namespace with -A; DaemonSet pods,
// which go with their nodes, and finished pods aside).
type RetiringStatus struct {
	Nodes int `json:"nodes"`
	Pods  int `json:"pods"`
	// Staying are the pods of Pods that no node but a retiring one runs:
	// draining the pool leaves them Pending.
	Staying []StayingPod `json:"staying"`
}

// StayingPod is a pod on a retiring node that cannot move off the
// retiring nodes.
type StayingPod struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Node      string `json:"node"`
	Why       string `json:"why"`
}

// PoolStatus is the nodes of one pool and platform.
type PoolStatus struct {
	Pool  string `json:"pool,omitempty"`
	OS    string `json:"os"`
	Build string `json:"build,omitempty"`
	// Release names the build (ltsc2022).
	Release string   `json:"release,omitempty"`
	Arch    string   `json:"arch,omitempty"`
	Nodes   int      `json:"nodes"`
	Ready   int      `json:"ready"`
	Taints  []string `json:"taints,omitempty"`
}

// GatedPod is a pod held by publish mode's scheduling gate.
type GatedPod struct {
	Namespace string      `json:"namespace"`
	Name      string      `json:"name"`
	Since     metav1.Time `json:"since"`
	Images    []string    `json:"images"`
}

// Refusal is one Event that says a pod was not placed.
type Refusal struct {
	Namespace string      `json:"namespace"`
	Pod       string      `json:"pod"`
	Reason    string      `json:"reason"`
	Message   string      `json:"message"`
	Count     int32       `json:"count,omitempty"`
	Last      metav1.Time `json:"last"`
}

// statusOptions are status's flags.
type statusOptions struct {
	allNamespaces bool
	output        string
	since         time.Duration
	limit         int
}

func newStatusCommand(flags *genericclioptions.ConfigFlags) *cobra.Command {
	o := &statusOptions{}
	cmd := &cobra.Command{
		Use:   "status [-A]",
		Short: "Gated pods, recent refusals, and the cluster's pools by OS and build",
		Long: `Show what a cluster's operator checks first: the node pools by OS, Windows build
and architecture, with their Ready nodes and taints; the pods publish mode holds
at their scheduling gate until their images' platforms are known; and the newest
Events that say a pod was not placed (FailedScheduling, AutoscalerBlind,
ImagePlatformsUnknown, PlatformConflict, PublishRefused), in the namespace
kubectl would use, or every namespace with -A; and the tags whose Windows
builds changed since they were last read (ImageBuildsChanged). When nodes are labelled
windows-aware.x-k8s.io/retiring=true, it counts them and the pods on them, and
lists the pods that cannot move: no node but a retiring one runs them. It lists
the DaemonSets whose pods go to nodes their images cannot run, and the Windows
DaemonSets that reach no Windows node, each with the kubectl patch that fixes
it (kubectl windows-aware explain daemonset/NAME tells the detail). It counts
the pods their node's kubelet rejected for want of room (OutOfcpu, OutOfmemory,
OutOfpods ...) by the scheduler that bound them, and lists the newest: two
schedulers whose caches filled the same room.`,
		Example: `  kubectl windows-aware status -A
  kubectl windows-aware status -n web --since 10m -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(o.output); err != nil {
				return err
			}
			cfg, ns, err := Connect(flags)
			if err != nil {
				return err
			}
			client, err := kubernetes.NewForConfig(cfg)
			if err != nil {
				return err
			}
			if o.allNamespaces {
				ns = metav1.NamespaceAll
			}
			s, err := readStatus(cmd.Context(), client, ns, time.Now().Add(-o.since), o.limit)
			if err != nil {
				return err
			}
			if o.output != OutputText {
				return writeStructured(cmd.OutOrStdout(), o.output, s)
			}
			return writeStatus(cmd.OutOrStdout(), s, time.Now())
		},
	}
	fs := cmd.Flags()
	fs.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "gated pods, refusals and kubelet-rejected pods of every namespace")
	fs.StringVarP(&o.output, "output", "o", OutputText, "output format: text, json or yaml")
	fs.DurationVar(&o.since, "since", time.Hour, "show refusals and pods the kubelet rejected this recent")
	fs.IntVar(&o.limit, "limit", 20, "show at most this many refusals, changed tags and pods the kubelet rejected")
	return cmd
}

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
	s.Pools = pools(nodes, e.Releases)
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
	}).EachListItem(ctx, metav1.ListOptions{LabelSelector: publish.LabelGated}, func(obj runtime.Object) error {
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
		if ev.Reason == imageinspect.EventImageBuildsChanged {
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

// readRetiring counts the retiring nodes and judges the pods on them by
// the scheduler's profile (as explain finds it): those that no node but a
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
			r.Staying = append(r.Staying, StayingPod{Namespace: pod.Namespace, Name: pod.Name, Node: pod.Spec.NodeName, Why: explain.WhyStays(rr, e.Releases)})
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

// pools counts the nodes of each pool and platform, as explain groups
// them, naming builds by the profile's releases (its extraReleases too).
func pools(nodes []*v1.Node, releases []windows.Release) []PoolStatus {
	var out []PoolStatus
	for _, g := range explain.GroupNodes(nodes) {
		p := PoolStatus{Pool: g.Pool, OS: g.Platform.OS, Build: g.Platform.Build, Arch: g.Platform.Arch, Nodes: len(g.Nodes),
			Release: explain.ReleaseName(releases, g.Platform.Build)}
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

// writeStatus writes the status for people.
func writeStatus(w io.Writer, s *Status, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "POOL\tOS\tBUILD\tARCH\tNODES\tREADY\tTAINTS")
	for _, p := range s.Pools {
		build := p.Build
		if p.Release != "" {
			build += " (" + p.Release + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%s\n", safetext.Args(dash(p.Pool), p.OS, dash(build), dash(p.Arch), p.Nodes, p.Ready, dash(strings.Join(p.Taints, ",")))...)
	}
	fmt.Fprintln(tw)
	if len(s.Gated) == 0 {
		fmt.Fprintln(tw, "No pod is held at publish mode's gate.")
	} else {
		fmt.Fprintln(tw, "GATED POD\tFOR\tIMAGES")
		for _, g := range s.Gated {
			fmt.Fprintf(tw, "%s/%s\t%s\t%s\n", safetext.Args(g.Namespace, g.Name, duration.HumanDuration(now.Sub(g.Since.Time)), strings.Join(g.Images, ","))...)
		}
	}
	if r := s.Retiring; r != nil {
		fmt.Fprintln(tw)
		fmt.Fprintf(tw, "%d retiring node(s) (%s=%s), %d pod(s) on them, %d cannot move.\n", r.Nodes, podneeds.LabelRetiring, podneeds.RetiringValue, r.Pods, len(r.Staying))
		if len(r.Staying) > 0 {
			fmt.Fprintln(tw, "STAYING POD\tNODE\tWHY")
			for _, p := range r.Staying {
				fmt.Fprintf(tw, "%s/%s\t%s\t%s\n", safetext.Args(p.Namespace, p.Name, p.Node, p.Why)...)
			}
		}
	}
	fmt.Fprintln(tw)
	writeDaemonSets(tw, s.DaemonSets)
	if len(s.BuildsChanged) > 0 {
		fmt.Fprintln(tw)
		fmt.Fprintln(tw, "TAG WHOSE BUILDS CHANGED\tFIRST POD\tAGO\tMESSAGE")
		for _, c := range s.BuildsChanged {
			fmt.Fprintf(tw, "%s\t%s/%s\t%s\t%s\n", safetext.Args(c.Image, c.Namespace, c.Pod, duration.HumanDuration(now.Sub(c.Last.Time)), c.Message)...)
		}
	}
	fmt.Fprintln(tw)
	writeKubeletRejected(tw, s.KubeletRejected, now)
	fmt.Fprintln(tw)
	if len(s.Refusals) == 0 {
		fmt.Fprintln(tw, "No recent refusal.")
	} else {
		fmt.Fprintln(tw, "POD\tREASON\tAGO\tMESSAGE")
		for _, r := range s.Refusals {
			fmt.Fprintf(tw, "%s/%s\t%s\t%s\t%s\n", safetext.Args(r.Namespace, r.Pod, r.Reason, duration.HumanDuration(now.Sub(r.Last.Time)), r.Message)...)
		}
	}
	return tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
