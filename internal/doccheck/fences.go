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
	"fmt"
	"strings"
)

// Block is one fenced code block of a Markdown page.
type Block struct {
	// Line is the line of the opening fence, from 1.
	Line int
	// Info is the fence's info string in lower case: the language
	// ("yaml", "sh") and anything after it.
	Info string
	// Text is the block's content, without its fences, each line
	// unindented by the opening fence's indentation (a block inside a
	// list item is indented with it).
	Text string
}

// Language is the first word of the info string.
func (b Block) Language() string {
	lang, _, _ := strings.Cut(b.Info, " ")
	return lang
}

// Blocks returns the fenced code blocks of a Markdown page, in CommonMark's
// sense: a fence is three or more backticks or tildes, indented by any
// amount (blocks inside list items are), and a block ends at a fence of the
// same character at least as long with nothing after it. It is an error for
// a block to be left open at the end of the page (everything after it then
// renders as code), and for a fence with an info string to stand inside a
// block whose fence is no longer than it: that is the next block's opening,
// and the block before it was never closed. A longer outer fence
// (four backticks around a three-backtick example) may hold one.
func Blocks(page string) ([]Block, error) {
	var blocks []Block
	var open *Block
	var fence, indent string
	var body []string
	for i, line := range strings.Split(page, "\n") {
		trimmed := strings.TrimLeft(line, " \t")
		if open == nil {
			f := fenceOf(trimmed)
			if f == "" {
				continue
			}
			info := strings.TrimSpace(trimmed[len(f):])
			if f[0] == '`' && strings.Contains(info, "`") {
				continue // inline code that starts a line, not a fence
			}
			open = &Block{Line: i + 1, Info: strings.ToLower(info)}
			fence, indent, body = f, line[:len(line)-len(trimmed)], nil
			continue
		}
		if f := fenceOf(trimmed); f != "" && f[0] == fence[0] && len(f) >= len(fence) {
			if strings.TrimSpace(trimmed[len(f):]) != "" {
				// CommonMark reads it as content, but a page means it as
				// the next block's opening: the block before was left
				// open, and the pairs of fences after it are swapped.
				return blocks, fmt.Errorf("line %d opens a %q block inside the block opened at line %d, which is not closed before it", i+1, trimmed, open.Line)
			}
			open.Text = strings.Join(body, "\n")
			blocks = append(blocks, *open)
			open = nil
			continue
		}
		body = append(body, strings.TrimPrefix(line, indent))
	}
	if open != nil {
		return blocks, fmt.Errorf("the code block opened at line %d (%q) is never closed", open.Line, fence+open.Info)
	}
	return blocks, nil
}

// fenceOf returns the run of three or more backticks or tildes that starts
// s, or "".
func fenceOf(s string) string {
	if len(s) < 3 || (s[0] != '`' && s[0] != '~') {
		return ""
	}
	n := 0
	for n < len(s) && s[n] == s[0] {
		n++
	}
	if n < 3 {
		return ""
	}
	return s[:n]
}
