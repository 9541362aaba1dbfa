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

package chartdocs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The README's generated part lies between these two lines; the rest of
// the page is written by hand.
const (
	BeginMarker = "<!-- values reference: generated from values.yaml by make chart-docs; do not edit -->"
	EndMarker   = "<!-- end of values reference -->"
)

// Row is one line of the values reference.
type Row struct {
	// Key is the value's path, dot-separated: publish.ungate.replicas.
	Key string
	// Default is the value in values.yaml, in YAML flow style; empty for a
	// group whose keys have rows of their own.
	Default string
	// Description is the comment above the key (and after it on its line),
	// as Markdown.
	Description string
}

// Rows lists the values of a values.yaml, in the file's order. A mapping
// whose keys carry comments is a group: each key gets a row of its own and
// must carry a comment, and the group gets a row if it carries one. Any
// other value (a scalar, a list, a mapping whose keys carry no comment,
// such as resources) is one row, and must carry a comment.
func Rows(values []byte) ([]Row, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(values, &doc); err != nil {
		return nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("values.yaml is not a mapping")
	}
	var rows []Row
	var errs []error
	walk(doc.Content[0], "", &rows, &errs)
	return rows, errors.Join(errs...)
}

func walk(m *yaml.Node, prefix string, rows *[]Row, errs *[]error) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		key := prefix + k.Value
		// A comment below a block's last key, before a blank line, would
		// document nothing: refuse it rather than drop it.
		for _, n := range []*yaml.Node{k, v} {
			if n.FootComment != "" {
				*errs = append(*errs, fmt.Errorf("%s: a comment below it belongs to no key; move it above the key it describes", key))
			}
		}
		desc := description(k.HeadComment, k.LineComment, v.LineComment)
		if v.Kind == yaml.MappingNode && hasCommentedKey(v) {
			if desc != "" {
				*rows = append(*rows, Row{Key: key, Description: desc})
			}
			walk(v, key+".", rows, errs)
			continue
		}
		if desc == "" {
			*errs = append(*errs, fmt.Errorf("%s (line %d) has no comment: say what it does", key, k.Line))
		}
		*rows = append(*rows, Row{Key: key, Default: flow(v), Description: desc})
	}
}

func hasCommentedKey(m *yaml.Node) bool {
	for i := 0; i < len(m.Content); i += 2 {
		if m.Content[i].HeadComment != "" || m.Content[i].LineComment != "" {
			return true
		}
	}
	return false
}

// description turns YAML comments into one Markdown table cell. Lines
// indented beyond the comment's text are examples: each becomes a line of
// code. A bare "#" starts a new paragraph.
func description(comments ...string) string {
	var parts []string
	var prose []string
	flush := func() {
		if len(prose) > 0 {
			parts = append(parts, escapeProse(strings.Join(prose, " ")))
			prose = nil
		}
	}
	for _, c := range comments {
		for _, line := range strings.Split(c, "\n") {
			line = strings.TrimSpace(line)
			if line == "" {
				// A blank line between two comment blocks.
				flush()
				continue
			}
			text := strings.TrimPrefix(strings.TrimPrefix(line, "#"), " ")
			switch {
			case strings.TrimSpace(text) == "":
				flush()
			case strings.HasPrefix(text, "  "):
				// Indentation within an example is kept: GitHub's code
				// spans keep spaces.
				flush()
				parts = append(parts, code(strings.TrimRight(text[2:], " ")))
			default:
				prose = append(prose, strings.TrimSpace(text))
			}
		}
	}
	flush()
	return strings.Join(parts, "<br>")
}

// escapeProse escapes what Markdown would read as markup, or as a table's
// cell separator, outside the text's `code spans`.
func escapeProse(s string) string {
	var b strings.Builder
	inCode := false
	for _, r := range s {
		switch {
		case r == '`':
			inCode = !inCode
			b.WriteRune(r)
		case r == '|':
			b.WriteString(`\|`)
		case inCode:
			b.WriteRune(r)
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '*' || r == '_' || r == '\\' || r == '[' || r == ']':
			b.WriteRune('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// code is s as a code span in a table cell.
func code(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	if strings.Contains(s, "`") {
		return "`` " + s + " ``"
	}
	return "`" + s + "`"
}

// flow writes a value in YAML flow style, in the file's order, strings
// quoted so that "1.37", "" and "None" read as the strings they are.
func flow(n *yaml.Node) string {
	var b strings.Builder
	writeFlow(&b, n)
	return b.String()
}

func writeFlow(b *strings.Builder, n *yaml.Node) {
	switch n.Kind {
	case yaml.AliasNode:
		writeFlow(b, n.Alias)
	case yaml.MappingNode:
		b.WriteString("{")
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(n.Content[i].Value)
			b.WriteString(": ")
			writeFlow(b, n.Content[i+1])
		}
		b.WriteString("}")
	case yaml.SequenceNode:
		b.WriteString("[")
		for i, c := range n.Content {
			if i > 0 {
				b.WriteString(", ")
			}
			writeFlow(b, c)
		}
		b.WriteString("]")
	default:
		if n.ShortTag() == "!!str" {
			q, _ := json.Marshal(n.Value)
			b.Write(q)
			return
		}
		b.WriteString(n.Value)
	}
}

// Table renders rows as the Markdown table of the README.
func Table(rows []Row) string {
	var b strings.Builder
	b.WriteString("| Key | Default | Description |\n|---|---|---|\n")
	for _, r := range rows {
		def := ""
		if r.Default != "" {
			def = code(r.Default)
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", r.Key, def, r.Description)
	}
	return b.String()
}

// Update returns readme with the part between the markers replaced by the
// values reference of values.
func Update(readme, values []byte) ([]byte, error) {
	rows, err := Rows(values)
	if err != nil {
		return nil, err
	}
	before, rest, ok := bytes.Cut(readme, []byte(BeginMarker+"\n"))
	if !ok {
		return nil, fmt.Errorf("the README has no line %q", BeginMarker)
	}
	_, after, ok := bytes.Cut(rest, []byte(EndMarker+"\n"))
	if !ok {
		return nil, fmt.Errorf("the README has no line %q after %q", EndMarker, BeginMarker)
	}
	var out bytes.Buffer
	out.Write(before)
	out.WriteString(BeginMarker + "\n\n")
	out.WriteString(Table(rows))
	out.WriteString("\n" + EndMarker + "\n")
	out.Write(after)
	return out.Bytes(), nil
}
