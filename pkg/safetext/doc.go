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

// Package safetext makes text that comes from the cluster, a file or a
// registry safe to print to an administrator's terminal or into a
// markdown document: the kubectl plugin's reports (explain, status,
// upgrade-plan) print image strings, annotations, Event messages and
// registry errors that a tenant or a registry owner wrote.
//
// A control character there is an attack, not text: an OSC 52 sequence
// puts a command on the clipboard, cursor moves and carriage returns
// overwrite a row with a forged "ready" or "fix: kubectl …" line, a
// newline adds a row of its own. So:
//
//   - Text escapes every control character (C0, DEL, C1), and the Unicode
//     characters that reorder or hide text (bidirectional controls, line
//     and paragraph separators, zero-width characters), as Go escapes
//     them (\x1b, \n, \u202e): a field stays one line, and shows what it
//     holds;
//   - CodeSpan puts a field into markdown as a code span, which markdown
//     does not interpret, with a fence longer than any run of backticks
//     in it, and a table's | escaped;
//   - NewWriter is the last guard, on the plugin's output streams: what
//     a report missed, it escapes on its way out (every control byte
//     but newline and tab, which the reports write themselves).
package safetext
