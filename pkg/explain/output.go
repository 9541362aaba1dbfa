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
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/windows-aware/windows-aware/pkg/safetext"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// WriteJSON writes the report as indented JSON.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes the report for people: one block per template.
func WriteText(w io.Writer, r *Report, catalog *windows.Catalog) error {
	bw := bufio.NewWriter(w)
	for _, t := range r.Templates {
		writeTemplate(bw, &t, r, catalog)
		fmt.Fprintln(bw)
	}
	fmt.Fprintf(bw, "%d pod template(s), %d with a conflict", len(r.Templates), r.Conflicts)
	if r.NoNode > 0 {
		fmt.Fprintf(bw, ", %d that no node runs", r.NoNode)
	}
	fmt.Fprintf(bw, "; profile %s", r.Profile)
	if r.Nodes > 0 {
		fmt.Fprintf(bw, "; %d node(s)", r.Nodes)
	}
	fmt.Fprintln(bw)
	if len(r.Skipped) > 0 {
		var kinds []string
		for _, s := range r.Skipped {
			kinds = append(kinds, strings.TrimSpace(s.Kind+" "+s.Name))
		}
		fmt.Fprintf(bw, "skipped (no pod template): %s\n", strings.Join(kinds, ", "))
	}
	return bw.Flush()
}

// field writes one labelled line of a template's block; its args (what a
// file, a tenant or a registry wrote among them) as safetext.Text: one
// line each, with no control character.
func field(w io.Writer, label, format string, args ...any) {
	fmt.Fprintf(w, "  %-10s %s\n", label, fmt.Sprintf(format, safetext.Args(args...)...))
}

func writeTemplate(w io.Writer, t *TemplateReport, r *Report, catalog *windows.Catalog) {
	name := t.Name
	if t.Namespace != "" {
		name = t.Namespace + "/" + name
	}
	fmt.Fprintf(w, "%s %s (%s)\n", safetext.Args(t.Kind, name, t.Source)...)
	if !t.PlacedByProfile {
		field(w, "scheduler", "%s: the %s profile does not place this pod; shown as it would decide", t.SchedulerName, r.Profile)
	}
	if rc := t.RuntimeClass; rc != nil {
		switch {
		case !rc.Found:
			field(w, "runtime", "RuntimeClass %s, not in the input: its nodeSelector and tolerations are unknown (add it to the input, or give --kubeconfig)", rc.Name)
		case len(rc.NodeSelector) == 0:
			field(w, "runtime", "RuntimeClass %s, with no nodeSelector", rc.Name)
		default:
			field(w, "runtime", "RuntimeClass %s, nodeSelector merged in: %s", rc.Name, labels(rc.NodeSelector))
		}
	}
	if t.Published != nil {
		writePublished(w, t.Published)
	}
	if t.Unresolved != "" {
		field(w, "registry", "%s", t.Unresolved)
	}
	if c := t.Conflict; c != nil {
		if c.RejectedBy == RejectedByAdmission {
			field(w, "CONFLICT", "%s: RuntimeClass admission rejects the pod: %s", c.Kind, c.Message)
			return
		}
		nodes := "N"
		if r.Nodes > 0 {
			nodes = fmt.Sprint(r.Nodes)
		}
		field(w, "CONFLICT", "%s: the scheduler leaves the pod Pending with", c.Kind)
		field(w, "", "0/%s nodes are available: %s.", nodes, c.Message)
		writeFixes(w, t.Fixes)
		return
	}
	switch {
	case t.OS == "":
		field(w, "OS", "any, from %s", t.OSFrom)
	default:
		field(w, "OS", "%s, from %s", t.OS, t.OSFrom)
	}
	for _, img := range t.Images {
		field(w, "image", "%s", img.Image)
		if len(img.Builds) > 0 {
			field(w, "", "needs build %s, from its %s", catalog.BuildNames(img.Builds), img.Source)
		} else {
			field(w, "", "a Windows image of no particular build, from its %s", img.Source)
		}
	}
	switch {
	case t.OS != windows.OSWindows:
	case t.AnyBuild && t.HostProcess:
		field(w, "hosts", "any Windows build (HostProcess)")
	case t.AnyBuild:
		field(w, "hosts", "any Windows build")
	default:
		hosts := catalog.BuildNames(t.HostBuilds)
		if len(t.HostBuilds) > 1 && t.PreferredBuild != "" {
			hosts += "; prefers " + t.PreferredBuild
		}
		field(w, "hosts", "%s", hosts)
	}
	if n := t.Nodes; n != nil {
		field(w, "nodes", "%d of %d fit", n.Fit, n.Total)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, g := range n.Groups {
			build := g.Build
			if g.MalformedBuild {
				build = fmt.Sprintf("%q (malformed build label)", g.Build)
			}
			platform := strings.Join(slices.DeleteFunc([]string{g.OS, build, g.Arch}, func(s string) bool { return s == "" }), " ")
			if g.Pool != "" {
				platform = "pool " + g.Pool + ": " + platform
			}
			line := fmt.Sprintf("  %-10s %s\t%d/%d fit", "", platform, g.Fit, g.Nodes)
			if len(g.Reasons) > 0 {
				line += "\t" + reasons(g.Reasons)
			}
			if len(g.Taints) > 0 {
				line += " (" + strings.Join(g.Taints, ", ") + ")"
			}
			fmt.Fprintln(tw, line)
		}
		tw.Flush()
	}
	writeRetiring(w, t.Retiring, catalog)
	writeFixes(w, t.Fixes)
	writeDaemonSet(w, t.DaemonSet)
}

// writeFixes writes what would let the pod run.
func writeFixes(w io.Writer, fixes []string) {
	for _, f := range fixes {
		field(w, "fix", "%s", f)
	}
}

func labels(m map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+"="+m[k])
	}
	return strings.Join(parts, ", ")
}

// reasons writes "3 node(s) didn't match Pod's OS, ...", most first.
func reasons(m map[string]int) string {
	keys := slices.SortedFunc(maps.Keys(m), func(a, b string) int {
		if m[a] != m[b] {
			return m[b] - m[a]
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d %s", m[k], k)
	}
	return strings.Join(parts, ", ")
}
