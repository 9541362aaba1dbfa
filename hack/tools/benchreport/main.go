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

// Command benchreport turns the results hack/bench.sh leaves in
// _output/bench/<mode>/ into docs/benchmarks.md (a short page: the goals
// and what was measured) and, with -full, every table into a generated
// report beside the results; with -summary it prints the verdicts. With
// -cpu it prints how a whole-scheduler CPU profile attributes its samples,
// with -upstream the table of hack/upstream.sh bench.
//
// It is a module of its own so that golang.org/x/perf, which it reads
// benchmark output with and whose benchstat hack/bench.sh runs, stays out
// of the product's go.mod.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	in := flag.String("in", "", "results directory of hack/bench.sh")
	out := flag.String("out", "", "write the short Markdown page here")
	fullOut := flag.String("full", "", "write the full Markdown report here")
	root := flag.String("root", ".", "the repository's root, which the page names -full's path from")
	findings := flag.String("findings", "", "hand-written findings to link, relative to the report")
	summary := flag.Bool("summary", false, "print the target verdicts")
	cpu := flag.String("cpu", "", "print a CPU profile's scheduling work by workload (cpu.go says which samples count), and exit")
	upstream := flag.String("upstream", "", "print the ratios of a hack/upstream.sh bench results directory, and exit")
	flag.Parse()
	if *cpu != "" || *upstream != "" {
		var err error
		if *cpu != "" {
			err = printCPU(os.Stdout, *cpu)
		} else {
			err = printUpstream(os.Stdout, *upstream)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchreport:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*in, *out, *fullOut, *root, *findings, *summary, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(1)
	}
}

func run(in, out, fullOut, root, findings string, verdicts bool, stdout io.Writer) error {
	if in == "" {
		return fmt.Errorf("-in is required")
	}
	r, err := load(in)
	if err != nil {
		return err
	}
	if verdicts {
		fmt.Fprintf(stdout, "\nTargets (%s run at %s):\n", r.meta["mode"], r.meta["commit"])
		for _, t := range r.targets() {
			switch {
			case t.info:
				fmt.Fprintf(stdout, "  %-6s %s: %s (%s with no noise)\n", t.verdict(), t.what, t.got, t.want)
			case t.noise != "":
				fmt.Fprintf(stdout, "  %-6s %s: %s (target %s; %s)\n", t.verdict(), t.what, t.got, t.want, t.noise)
			default:
				fmt.Fprintf(stdout, "  %-6s %s: %s (target %s)\n", t.verdict(), t.what, t.got, t.want)
			}
		}
	}
	if fullOut != "" {
		var buf bytes.Buffer
		full(&buf, r)
		if err := os.WriteFile(fullOut, buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	if out == "" {
		return nil
	}
	var buf bytes.Buffer
	summary(&buf, r, findings, displayPath(root, fullOut))
	return os.WriteFile(out, buf.Bytes(), 0o644)
}

// displayPath is path as the page names it: relative to the repository's
// root when it lies below it, so that the page names no machine's
// directories; else its base name.
func displayPath(root, path string) string {
	if path == "" {
		return ""
	}
	absRoot, err1 := filepath.Abs(root)
	abs, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return filepath.Base(path)
	}
	rel, err := filepath.Rel(absRoot, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return filepath.Base(path)
	}
	return filepath.ToSlash(rel)
}
