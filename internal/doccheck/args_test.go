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
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configv1 "github.com/windows-aware/windows-aware/pkg/apis/config/v1"
)

// argsPage is the page that documents every field of the args.
const argsPage = repoRoot + "/docs/configure.md"

// TestResolutionArgsDocumented: the imageResolution table of
// docs/configure.md has a row for every field of the args, and no other,
// with the scheduler's default.
func TestResolutionArgsDocumented(t *testing.T) {
	rows := pageTable(t, argsPage, "## imageResolution args")
	var args configv1.WindowsAwareArgs
	configv1.SetDefaults_WindowsAwareArgs(&args)
	fields := map[string]field{}
	flattenFields("", reflect.ValueOf(args.ImageResolution).Elem(), fields)
	want := map[string]string{}
	for name, f := range fields {
		if !f.required {
			want[name] = defaultText(f.value)
		} else {
			want[name] = ""
		}
	}
	checkDocumented(t, rows, want)
}

// checkDocumented holds the rows of a page's table to the fields and
// defaults of want: the same names, and each default as documented.
func checkDocumented(t *testing.T, rows, want map[string]string) {
	t.Helper()
	if diff := cmp.Diff(slices.Sorted(maps.Keys(want)), slices.Sorted(maps.Keys(rows))); diff != "" {
		t.Fatalf("fields (-args +%s):\n%s", argsPage, diff)
	}
	for name, wantText := range want {
		if got := cellDefault(rows[name]); got != wantText {
			t.Errorf("%s: documented default %q, scheduler default %q", name, got, wantText)
		}
	}
}

// TestArgsDocumented: the WindowsAwareArgs table of docs/configure.md has a
// row for every field of the args, and no other, with the scheduler's
// default: the fields of osTaints each on a row of its own, imageResolution
// on one row by its scope (its fields have a table of their own, above).
func TestArgsDocumented(t *testing.T) {
	rows := pageTable(t, argsPage, "## WindowsAwareArgs")
	var args configv1.WindowsAwareArgs
	configv1.SetDefaults_WindowsAwareArgs(&args)
	want := map[string]string{}
	v := reflect.ValueOf(args)
	for i := range v.NumField() {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		fv := v.Field(i)
		switch {
		case name == "":
			// TypeMeta, inline.
		case name == "imageResolution":
			want[name] = "scope: " + *args.ImageResolution.Scope
		case fv.Kind() == reflect.Pointer && fv.Elem().Kind() == reflect.Struct:
			for j := range fv.Elem().NumField() {
				sub, _, _ := strings.Cut(fv.Elem().Type().Field(j).Tag.Get("json"), ",")
				want[name+"."+sub] = listText(fv.Elem().Field(j))
			}
		default:
			want[name] = listText(fv)
		}
	}
	checkDocumented(t, rows, want)
}

// listText spells a default as the page does, a list with its items:
// `[os, node.kubernetes.io/os]`.
func listText(v reflect.Value) string {
	if v.Kind() != reflect.Slice || v.Len() == 0 {
		return defaultText(v)
	}
	items := make([]string, v.Len())
	for i := range v.Len() {
		items[i] = fmt.Sprint(v.Index(i).Interface())
	}
	return "[" + strings.Join(items, ", ") + "]"
}

// pageTable returns the rows of the first table after heading in page, by
// the field in their first cell, with their second cell.
func pageTable(t *testing.T, page, heading string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(data), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("%s has no %q", page, heading)
	}
	rows := map[string]string{}
	inTable := false
	for _, line := range strings.Split(after, "\n") {
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		inTable = true
		cells := strings.Split(line, "|")
		if len(cells) < 4 || strings.HasPrefix(cells[1], "---") || strings.TrimSpace(cells[1]) == "field" {
			continue
		}
		rows[strings.Trim(strings.TrimSpace(cells[1]), "`")] = strings.TrimSpace(cells[2])
	}
	return rows
}

// field is one field of the args: its defaulted value, and whether it is
// required (no omitempty), which has no default.
type field struct {
	value    reflect.Value
	required bool
}

// flattenFields lists the fields of a struct by JSON path: leaves, and
// lists of structs with their items' fields under "name[].".
func flattenFields(prefix string, v reflect.Value, out map[string]field) {
	for i := range v.NumField() {
		f := v.Type().Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		fv := v.Field(i)
		required := !strings.Contains(opts, "omitempty")
		switch {
		case f.Type.Kind() == reflect.Struct && !reflect.PointerTo(f.Type).Implements(reflect.TypeFor[json.Unmarshaler]()):
			flattenFields(prefix+name+".", fv, out)
		case f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Struct:
			out[prefix+name] = field{fv, required}
			flattenFields(prefix+name+"[].", reflect.New(f.Type.Elem()).Elem(), out)
		default:
			out[prefix+name] = field{fv, required}
		}
	}
}

// defaultText spells a default as the page does: `"None"`, `10s`, `[]`,
// `""`, `false`, or nothing for a field of a list item.
func defaultText(v reflect.Value) string {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return ""
		}
		v = v.Elem()
	}
	switch x := v.Interface().(type) {
	case metav1.Duration:
		return x.Duration.String()
	case string:
		if x == "" {
			return `""`
		}
		return x
	}
	if v.Kind() == reflect.Slice {
		return "[]"
	}
	return fmt.Sprint(v.Interface())
}

// cellDefault reads a default cell: its first code span, quotes dropped
// but for "", durations in Go's spelling.
func cellDefault(cell string) string {
	_, rest, ok := strings.Cut(cell, "`")
	if !ok {
		return ""
	}
	code, _, _ := strings.Cut(rest, "`")
	if code != `""` {
		code = strings.Trim(code, `"`)
	}
	if d, err := time.ParseDuration(code); err == nil && code != "0" {
		return d.String()
	}
	return code
}
