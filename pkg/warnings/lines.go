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

package warnings

import "strings"

// MaxLength bounds a warning's length: the API server drops
// warnings longer than its limits and kubectl prints each on one line, so
// a long sentence is cut into several warnings rather than one.
const MaxLength = 120

// warningPrefix opens every warning, so that a user who sees it in
// kubectl apply's output knows what said it.
const warningPrefix = "windows-aware: "

// continuation opens the warnings that carry on a sentence.
const continuation = "... "

// warningLines cuts text into warnings of at most MaxLength
// characters, between words, each opened by warningPrefix, those after the
// first also by continuation. A word too long for a line (an image
// reference) is cut where the line ends. Line breaks in text become
// spaces.
func warningLines(text string) []string {
	words := strings.Fields(text)
	var lines []string
	line := warningPrefix
	open := len(warningPrefix)
	flush := func() {
		lines = append(lines, strings.TrimRight(line, " "))
		line = warningPrefix + continuation
		open = len(line)
	}
	for _, word := range words {
		// A word that fits a line of its own starts one; a longer one is
		// cut from where this line stands.
		if len(line) > open && len(line)+1+len(word) > MaxLength && len(word) <= MaxLength-len(warningPrefix+continuation) {
			flush()
		}
		if len(line) > open {
			line += " "
		}
		for len(line)+len(word) > MaxLength {
			cut := MaxLength - len(line)
			line += word[:cut]
			word = word[cut:]
			flush()
		}
		line += word
	}
	if len(line) > open {
		lines = append(lines, line)
	}
	return lines
}
