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
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// repoRoot is the repository, seen from this package's directory.
const repoRoot = "../.."

// skippedDirs hold no page of the project's: build output, the demo's state,
// version control.
var skippedDirs = map[string]bool{".git": true, "bin": true, "_output": true, ".demo": true, "node_modules": true}

// pages lists every Markdown page of the repository.
func pages(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && skippedDirs[d.Name()] {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".md") {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("no Markdown page found")
	}
	return out
}

// documentSeparator splits a YAML stream into its documents.
var documentSeparator = regexp.MustCompile(`(?m)^---[ \t]*(#.*)?$`)

// TestPagesRenderAndParse: every fenced block of every page is closed, and
// every YAML block parses, document by document.
func TestPagesRenderAndParse(t *testing.T) {
	for _, page := range pages(t) {
		name, _ := filepath.Rel(repoRoot, page)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(page)
			if err != nil {
				t.Fatal(err)
			}
			blocks, err := Blocks(string(data))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for _, b := range blocks {
				if b.Language() != "yaml" && b.Language() != "yml" {
					continue
				}
				for i, doc := range documentSeparator.Split(b.Text, -1) {
					var v any
					if err := yaml.Unmarshal([]byte(doc), &v); err != nil {
						t.Errorf("%s: the YAML block at line %d, document %d, does not parse: %v", name, b.Line, i+1, err)
					}
				}
			}
		})
	}
}
