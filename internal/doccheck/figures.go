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

package doccheck

import (
	"regexp"
	"slices"
	"strings"
)

// A Figure is a measurement a page states: a throughput, a ratio, or how
// long a make target took. A figure copied to a second page goes stale
// there when the first is measured again (the pages once gave four
// different times for one make demo), so each lives on one page, with its
// commit, and the others link to it.
type Figure struct {
	// Text is the figure as written, spaces collapsed ("81.1 pods/s").
	Text string
	// Line is the 1-based line it starts on.
	Line int
	// Of, for a duration, are the make targets its paragraph names
	// ("make demo"): a duration is a figure of those, and "47 s" of one
	// target is not "47 s" of another.
	Of []string
}

var (
	// Throughputs: "81.1 pods/s", "218 pods a second".
	throughput = regexp.MustCompile(`\b\d[\d,]*(?:\.\d+)?\s*(?:pods/s\b|pods (?:a|per) second\b)`)
	// Ratios: "1.44x", "1.44×", "1.8 times". A decimal point is required,
	// so that counts ("×2 pods") and multiplications ("2 × 4.4 s") are not
	// ratios.
	ratio = regexp.MustCompile(`\b(\d+\.\d+\s*(?:[x×]|times))(?:[^\p{L}\p{N}]|$)`)
	// Durations as a measurement writes them, never a setting: minutes
	// and seconds together ("12 min 53 s", "2m32s").
	compound = regexp.MustCompile(`\b\d+\s*min\s+\d+\s*s\b|\b\d+m\d{1,2}s\b`)
	// Any duration ("49 s", "22–62 s", "8.4 min", "about two minutes"),
	// which is a figure only in a paragraph that names a make target.
	duration = regexp.MustCompile(`(?i)\b(?:\d+(?:[.,]\d+)?(?:\s*[–-]\s*\d+(?:[.,]\d+)?)?\s*(?:s|sec|seconds?|min|minutes?|hours?)|(?:one|two|three|four|five|six|seven|eight|nine|ten|twenty)\s+(?:seconds?|minutes?|hours?))\b`)
	// makeTarget names a make target in a paragraph: `make demo`.
	makeTarget = regexp.MustCompile("`make [a-z][a-z-]*")
	spaces     = regexp.MustCompile(`\s+`)
)

// Figures lists the measurements of a Markdown page, in prose and tables
// (not in code blocks, whose output a reader compares with their own run).
// A duration counts only in a paragraph, or table row, that names a make
// target: elsewhere "5 minutes" is as likely a setting as a measurement.
func Figures(page string) []Figure {
	var out []Figure
	lines := strings.Split(page, "\n")
	inFence := false
	var para []int // the line indexes of the current paragraph
	flush := func() {
		if len(para) == 0 {
			return
		}
		text := ""
		starts := make([]int, len(para)) // offset of each line in text
		for i, l := range para {
			starts[i] = len(text)
			text += lines[l] + "\n"
		}
		lineOf := func(off int) int {
			n := para[0]
			for i, s := range starts {
				if off >= s {
					n = para[i]
				}
			}
			return n + 1
		}
		// add records each match of re, or of its first group if it has
		// one (the ratio's, without the character that ends it).
		add := func(re *regexp.Regexp) {
			for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
				if len(m) >= 4 {
					m = m[2:4]
				}
				out = append(out, Figure{Text: spaces.ReplaceAllString(text[m[0]:m[1]], " "), Line: lineOf(m[0])})
			}
		}
		add(throughput)
		add(ratio)
		add(compound)
		if targets := makeTargets(text); len(targets) > 0 {
			// Durations within a compound figure are that figure already.
			masked := compound.ReplaceAllStringFunc(text, func(s string) string { return strings.Repeat(" ", len(s)) })
			for _, m := range duration.FindAllStringIndex(masked, -1) {
				out = append(out, Figure{Text: spaces.ReplaceAllString(text[m[0]:m[1]], " "), Line: lineOf(m[0]), Of: targets})
			}
		}
		para = para[:0]
	}
	for i, l := range lines {
		trimmed := strings.TrimSpace(l)
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			flush()
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		switch {
		case trimmed == "":
			flush()
		case strings.HasPrefix(trimmed, "|"), strings.HasPrefix(trimmed, "#"):
			// A table row or a heading is a paragraph of its own.
			flush()
			para = append(para, i)
			flush()
		default:
			para = append(para, i)
		}
	}
	flush()
	return out
}

// makeTargets are the make targets a paragraph names, each once, in order.
func makeTargets(text string) []string {
	var out []string
	for _, m := range makeTarget.FindAllString(text, -1) {
		m = strings.TrimPrefix(m, "`")
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}
