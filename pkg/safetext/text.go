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

package safetext

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// unsafe reports whether r may not reach a terminal as it is.
func unsafe(r rune) bool {
	switch {
	case unicode.IsControl(r): // C0, DEL, C1
		return true
	case r == utf8.RuneError:
		return true
	case unicode.Is(unicode.Cf, r): // format: bidi controls, zero-width joiners
		return true
	case r == '\u2028' || r == '\u2029': // line and paragraph separators
		return true
	}
	return false
}

// Text returns s with every character that may not reach a terminal as it
// is escaped as Go escapes it in a quoted string; s itself when it holds
// none (no allocation).
func Text(s string) string {
	if !strings.ContainsFunc(s, unsafe) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unsafe(r) {
			if r == utf8.RuneError && size == 1 {
				fmt.Fprintf(&b, `\x%02x`, s[i])
			} else {
				q := strconv.QuoteRuneToASCII(r) // '\x1b', '\n', '\u202e'
				b.WriteString(q[1 : len(q)-1])
			}
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Args returns args with each string, error and fmt.Stringer among them
// made Text, for a fmt call that writes a row of a report.
func Args(args ...any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case string:
			out[i] = Text(v)
		case error:
			out[i] = Text(v.Error())
		case fmt.Stringer:
			out[i] = Text(v.String())
		default:
			out[i] = a
		}
	}
	return out
}

// CodeBlock returns s as a fenced markdown code block of the language
// lang, each line indented by indent (a list item's): Text, fenced by a
// run of backticks longer than its longest (three at least), so that
// nothing in s ends the block. Unlike a span's, a block's text is copied
// as it is: a | stays a |.
func CodeBlock(s, lang, indent string) string {
	s = Text(s)
	fence := strings.Repeat("`", max(3, longestBackticks(s)+1))
	return indent + fence + lang + "\n" + indent + s + "\n" + indent + fence + "\n"
}

// CodeSpan returns s as a markdown code span: Text, fenced by one backtick
// more than its longest run of backticks (padded with a space where it
// starts or ends with one), and with | escaped, which a table row would
// otherwise split at even inside a span.
func CodeSpan(s string) string {
	s = strings.ReplaceAll(Text(s), "|", `\|`)
	fence := strings.Repeat("`", longestBackticks(s)+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || s == "" {
		s = " " + s + " "
	}
	return fence + s + fence
}

// longestBackticks is the length of the longest run of backticks in s: a
// markdown fence one longer is never ended by s.
func longestBackticks(s string) int {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}
