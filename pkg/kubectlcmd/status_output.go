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
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/windows-aware/windows-aware/pkg/safetext"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

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
		fmt.Fprintf(tw, "%d retiring node(s) (%s=%s), %d pod(s) on them, %d cannot move.\n", r.Nodes, wellknown.LabelRetiring, wellknown.RetiringValue, r.Pods, len(r.Staying))
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

// dash stands for an empty cell.
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
