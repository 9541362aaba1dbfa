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

package chart

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/windows-aware/windows-aware/internal/doccheck"
)

// TestExampleServicesAreClusterIP: every Service the repository shows, in
// its manifests, the demo's workloads and the YAML of its pages, is
// ClusterIP (or leaves the type to that default), so that applying an
// example as it stands never opens a port outside the cluster.
func TestExampleServicesAreClusterIP(t *testing.T) {
	type source struct {
		name string
		yaml string
	}
	var sources []source
	for _, dir := range []string{"../../manifests", "../../hack/demo", "../../docs"} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			switch filepath.Ext(path) {
			case ".yaml", ".yml":
				sources = append(sources, source{path, string(data)})
			case ".md":
				blocks, err := doccheck.Blocks(string(data))
				if err != nil {
					return err
				}
				for _, b := range blocks {
					if b.Language() == "yaml" {
						sources = append(sources, source{path, b.Text})
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := doccheck.Blocks(string(readme))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		if b.Language() == "yaml" {
			sources = append(sources, source{"README.md", b.Text})
		}
	}

	services := 0
	for _, src := range sources {
		reader := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(src.yaml)))
		for {
			doc, err := reader.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", src.name, err)
			}
			var obj struct {
				Kind     string `json:"kind"`
				Metadata struct {
					Name string `json:"name"`
				} `json:"metadata"`
				Spec struct {
					Type string `json:"type"`
				} `json:"spec"`
			}
			// Templates and fragments that are not YAML objects hold no
			// Service.
			if err := utilyaml.Unmarshal(bytes.TrimSpace(doc), &obj); err != nil || obj.Kind != "Service" {
				continue
			}
			services++
			if obj.Spec.Type != "" && obj.Spec.Type != "ClusterIP" {
				t.Errorf("%s: Service %s is %s, want ClusterIP", src.name, obj.Metadata.Name, obj.Spec.Type)
			}
		}
	}
	// The examples' Services at least: a walk that found none checked
	// nothing.
	if services < 3 {
		t.Errorf("found %d Services, want the examples' at least", services)
	}
}
