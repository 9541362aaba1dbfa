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
	"bufio"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/windows-aware/windows-aware/pkg/safetext"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// WriteUpgradeTable writes an upgrade plan for people: the workloads and
// their verdicts, the pods that block draining, the what-if of a pool, and
// the counts.
func WriteUpgradeTable(w io.Writer, p *UpgradePlan, catalog *windows.Catalog) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, upgradeTitle(p, catalog))
	fmt.Fprintln(bw)
	tw := tabwriter.NewWriter(bw, 0, 4, 2, ' ', 0)
	if len(p.Workloads) == 0 {
		fmt.Fprintln(tw, "No workload runs on the nodes that move, or would.")
	} else {
		fmt.Fprintln(tw, "WORKLOAD\tVERDICT\tPODS\tWHY")
		for _, wp := range p.Workloads {
			lines := verdictLines(&wp, catalog)
			fmt.Fprintf(tw, "%s %s/%s\t%s\t%d\t%s\n", safetext.Args(wp.Kind, wp.Namespace, wp.Name, wp.Verdict, wp.Pods, lines[0])...)
			for _, l := range lines[1:] {
				fmt.Fprintf(tw, "\t\t\t%s\n", safetext.Args(l)...)
			}
			for _, f := range wp.Fixes {
				fmt.Fprintf(tw, "\t\t\t%s\n", safetext.Args("fix: "+f)...)
			}
		}
	}
	fmt.Fprintln(tw)
	if len(p.Blocking) == 0 {
		fmt.Fprintln(tw, "No pod blocks draining the nodes that move.")
	} else {
		fmt.Fprintln(tw, "BLOCKS DRAIN\tNODE\tWORKLOAD\tWHY")
		for _, b := range p.Blocking {
			fmt.Fprintf(tw, "%s/%s\t%s\t%s\t%s; no node that stays at its build runs it\n", safetext.Args(b.Namespace, b.Name, b.Node, b.Workload, b.Reason)...)
		}
	}
	if len(p.Agents) > 0 {
		fmt.Fprintln(tw)
		fmt.Fprintln(tw, "AGENT\tMOVED NODES\tBEFORE\tAFTER\tWHY")
		for _, a := range p.Agents {
			why := a.Why
			if why == "" {
				why = "a pod on every moved node"
			}
			fmt.Fprintf(tw, "DaemonSet %s/%s\t%d\t%d\t%d\t%s\n", safetext.Args(a.Namespace, a.Name, a.Moving, a.Before, a.After, why)...)
			for _, f := range a.Fixes {
				fmt.Fprintf(tw, "\t\t\t\t%s\n", safetext.Args("fix: "+f)...)
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if wi := p.WhatIf; wi != nil {
		fmt.Fprintln(bw)
		writeWhatIf(bw, wi, catalog)
	}
	fmt.Fprintln(bw)
	writeSummaryText(bw, p)
	if len(p.Steer) > 0 {
		fmt.Fprintln(bw)
		fmt.Fprintln(bw, "To steer new pods off the nodes that move while they move (the scheduler's Score ranks retiring nodes last):")
		for _, c := range p.Steer {
			fmt.Fprintf(bw, "  %s\n", safetext.Text(c))
		}
	}
	return bw.Flush()
}

// upgradeTitle says what moves where.
func upgradeTitle(p *UpgradePlan, catalog *windows.Catalog) string {
	what := "every Windows node of an older build"
	if p.Pool != "" {
		what = "pool " + p.Pool
	}
	from := "none"
	if len(p.From) > 0 {
		from = catalog.BuildNames(p.From)
	}
	return fmt.Sprintf("Upgrade of %s to %s: %d node(s) move, from %s; profile %s; %d node(s)",
		what, catalog.BuildNames([]string{p.Target}), p.Moving, from, p.Profile, p.Nodes)
}

// verdictLines say why a workload has its verdict, an image a line.
func verdictLines(wp *WorkloadPlan, catalog *windows.Catalog) []string {
	var lines []string
	switch wp.Verdict {
	case VerdictReady:
		lines = append(lines, "runs, from its "+sourceWords(wp.Source))
	case VerdictRebuild:
		for _, i := range wp.Images {
			if i.Verdict != VerdictRebuild {
				continue
			}
			line := fmt.Sprintf("%s has %s only", i.Image, catalog.BuildNames(i.Builds))
			if i.SiblingTag != "" {
				line += ": use " + i.SiblingTag
			} else {
				line += ": rebuild it on a base image the target runs"
			}
			lines = append(lines, line)
		}
		if len(wp.Pins) > 0 {
			lines = append(lines, "and "+pinWords(wp.Pins)+" no node once the nodes move")
		}
	}
	if len(lines) == 0 {
		lines = append(lines, wp.Reason)
	}
	return lines
}

// sourceWords says a verdict's source in words.
func sourceWords(source string) string {
	parts := strings.Split(source, "+")
	for i, s := range parts {
		switch s {
		case "tag":
			parts[i] = "tags"
		case "registry":
			parts[i] = "registry's platforms"
		case "hostProcess":
			parts[i] = "HostProcess securityContext (any build)"
		}
	}
	return strings.Join(parts, " and ")
}

func writeWhatIf(w io.Writer, wi *WhatIf, catalog *windows.Catalog) {
	fmt.Fprintf(w, "What if pool %s (%d node(s), %s) becomes %s:\n", wi.Pool, wi.Nodes, catalog.BuildNames(wi.From), catalog.BuildNames([]string{wi.To}))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if len(wi.Breaks) == 0 {
		fmt.Fprintln(tw, "  no pod running there breaks")
	} else {
		fmt.Fprintln(tw, "  BREAKS\tNODE\tWORKLOAD\tWHY")
		for _, b := range wi.Breaks {
			fmt.Fprintf(tw, "  %s/%s\t%s\t%s\t%s\n", safetext.Args(b.Namespace, b.Name, b.Node, b.Workload, b.Reason)...)
		}
	}
	if len(wi.Stranded) > 0 {
		fmt.Fprintln(tw, "  STRANDED\tNODE\tWORKLOAD\tWHY")
		for _, b := range wi.Stranded {
			fmt.Fprintf(tw, "  %s/%s\t%s\t%s\t%s\n", safetext.Args(b.Namespace, b.Name, b.Node, b.Workload, b.Reason)...)
		}
	}
	if len(wi.Lands) > 0 {
		fmt.Fprintln(tw, "  STARTS LANDING\t\tWORKLOAD\t")
		for _, l := range wi.Lands {
			fmt.Fprintf(tw, "  %s/%s\tPending\t%s\t\n", safetext.Args(l.Namespace, l.Name, l.Workload)...)
		}
	}
	tw.Flush()
	if len(wi.NewWorkloads) > 0 {
		fmt.Fprintf(w, "  next pods of %s land there too\n", strings.Join(wi.NewWorkloads, ", "))
	}
}

// summaryLine counts the verdicts, the pods that block draining and the
// agents that lose moved nodes.
func summaryLine(p *UpgradePlan) string {
	s := &p.Summary
	line := fmt.Sprintf("%d workload(s): %d ready, %d need a rebuild, %d to retarget, %d run nowhere, %d unknown; %d pod(s) block draining",
		len(p.Workloads), s.Ready, s.Rebuild, s.Retarget, s.Nowhere, s.Unknown, s.Blocking)
	if len(p.Agents) > 0 {
		line += fmt.Sprintf("; %d of %d agent(s) lose moved nodes", s.AgentsLosing, len(p.Agents))
	}
	return line
}

func writeSummaryText(w io.Writer, p *UpgradePlan) {
	s := &p.Summary
	fmt.Fprintln(w, summaryLine(p))
	if len(s.Namespaces) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAMESPACE\tREADY\tREBUILD\tRETARGET\tNOWHERE\tUNKNOWN")
	for _, n := range s.Namespaces {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\n", safetext.Args(n.Namespace, n.Ready, n.Rebuild, n.Retarget, n.Nowhere, n.Unknown)...)
	}
	tw.Flush()
}

// WriteUpgradeMarkdown writes the plan as a change request's section:
// what moves, the counts per verdict and namespace, what to rebuild, what
// blocks draining.
func WriteUpgradeMarkdown(w io.Writer, p *UpgradePlan, catalog *windows.Catalog) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "### %s\n\n", upgradeTitle(p, catalog))
	s := &p.Summary
	fmt.Fprintf(bw, "%s.\n\n", markdownEscape(summaryLine(p)))
	if len(s.Namespaces) > 0 {
		fmt.Fprintln(bw, "| namespace | ready | rebuild | retarget | nowhere | unknown |")
		fmt.Fprintln(bw, "|---|---:|---:|---:|---:|---:|")
		for _, n := range s.Namespaces {
			fmt.Fprintf(bw, "| %s | %d | %d | %d | %d | %d |\n", safetext.CodeSpan(n.Namespace), n.Ready, n.Rebuild, n.Retarget, n.Nowhere, n.Unknown)
		}
		fmt.Fprintln(bw)
	}
	for _, v := range []Verdict{VerdictRebuild, VerdictRetarget, VerdictNowhere, VerdictUnknown} {
		first := true
		for _, wp := range p.Workloads {
			if wp.Verdict != v {
				continue
			}
			if first {
				fmt.Fprintf(bw, "**%s**\n\n", map[Verdict]string{VerdictRebuild: "Need a rebuild", VerdictRetarget: "To retarget", VerdictNowhere: "Run nowhere", VerdictUnknown: "Unknown"}[v])
				first = false
			}
			fmt.Fprintf(bw, "- %s %s: %s\n", markdownEscape(wp.Kind), safetext.CodeSpan(wp.Namespace+"/"+wp.Name), markdownEscape(strings.Join(verdictLines(&wp, catalog), "; ")))
			writeMarkdownFixes(bw, wp.Fixes)
		}
		if !first {
			fmt.Fprintln(bw)
		}
	}
	if len(p.Blocking) > 0 {
		fmt.Fprintln(bw, "**Block draining**")
		fmt.Fprintln(bw)
		for _, b := range p.Blocking {
			fmt.Fprintf(bw, "- %s on %s (%s)\n", safetext.CodeSpan(b.Namespace+"/"+b.Name), safetext.CodeSpan(b.Node), markdownEscape(b.Workload))
		}
		fmt.Fprintln(bw)
	}
	if len(p.Agents) > 0 {
		fmt.Fprintln(bw, "**Agents on the moved nodes**")
		fmt.Fprintln(bw)
		for _, a := range p.Agents {
			why := a.Why
			if why == "" {
				why = "a pod on every moved node"
			}
			fmt.Fprintf(bw, "- DaemonSet %s: %d of %d moved node(s) before, %d after: %s\n", safetext.CodeSpan(a.Namespace+"/"+a.Name), a.Before, a.Moving, a.After, markdownEscape(why))
			writeMarkdownFixes(bw, a.Fixes)
		}
		fmt.Fprintln(bw)
	}
	if wi := p.WhatIf; wi != nil {
		fmt.Fprintf(bw, "**What if pool %s becomes %s**: %d running pod(s) break, %d stranded, %d pending pod(s) start landing there.\n",
			markdownEscape(wi.Pool), catalog.BuildNames([]string{wi.To}), len(wi.Breaks), len(wi.Stranded), len(wi.Lands))
		for _, b := range wi.Breaks {
			fmt.Fprintf(bw, "- breaks: %s on %s: %s\n", safetext.CodeSpan(b.Namespace+"/"+b.Name), safetext.CodeSpan(b.Node), markdownEscape(b.Reason))
		}
		for _, b := range wi.Stranded {
			fmt.Fprintf(bw, "- stranded: %s on %s: %s\n", safetext.CodeSpan(b.Namespace+"/"+b.Name), safetext.CodeSpan(b.Node), markdownEscape(b.Reason))
		}
	}
	return bw.Flush()
}

// writeMarkdownFixes writes fixes under a bullet: a command as a code
// block to copy whole (a span would escape its pipe), a fix in words as a
// line.
func writeMarkdownFixes(w io.Writer, fixes []string) {
	for _, f := range fixes {
		if strings.HasPrefix(f, "kubectl ") || strings.HasPrefix(f, "echo ") {
			fmt.Fprintf(w, "\n%s", safetext.CodeBlock(f, "sh", "  "))
			continue
		}
		fmt.Fprintf(w, "  - fix: %s\n", markdownEscape(f))
	}
}

// markdownEscape makes prose from the cluster plain markdown text: Text,
// with every character markdown would read as markup (emphasis, code,
// links, HTML, a table's cell, a heading) escaped.
func markdownEscape(s string) string { return markdownSpecials.Replace(safetext.Text(s)) }

var markdownSpecials = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"<", `\<`, ">", `\>`, "|", `\|`, "#", `\#`, "!", `\!`,
)
