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

package toolsmod

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
)

// versions is what a go.mod selects: the version of each module it
// requires, or the one a replace directive puts in its place.
func versions(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.ParseLax(path, data, nil)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	v := make(map[string]string, len(f.Require))
	for _, r := range f.Require {
		v[r.Mod.Path] = r.Mod.Version
	}
	for _, r := range f.Replace {
		if r.Old.Version == "" && r.New.Version != "" {
			v[r.Old.Path] = r.New.Version
		}
	}
	return v
}

// mismatches lists, sorted, the modules both maps hold at different
// versions, as "module: product version, tools version", but for those
// allowed names.
func mismatches(product, tools map[string]string, toolsMod string, allowed map[string]string) []string {
	var out []string
	for mod, pv := range product {
		if _, ok := allowed[mod]; ok {
			continue
		}
		if tv, ok := tools[mod]; ok && tv != pv {
			out = append(out, mod+": "+pv+" in go.mod, "+tv+" in "+toolsMod)
		}
	}
	sort.Strings(out)
	return out
}

// toolsModules are the tools modules whose builds a first make demo or CI
// run makes before the product's and that share most of its packages:
// kube-apiserver, kube-controller-manager and kubectl; kwok. Not the
// registry: the distribution release it pins needs newer golang.org/x,
// gRPC and OpenTelemetry modules than the product's, so it shares little
// whatever its go.mod says. Nor helm and Karpenter's kwok provider, which
// build later and only for the tests that need them.
var toolsModules = []struct {
	gomod string
	// allowed are the modules the tool needs at a newer version than the
	// product's, with why: the product's version is not raised for a tool.
	allowed map[string]string
}{
	{gomod: "hack/tools/go.mod"},
	{
		gomod: "hack/tools/kwok/go.mod",
		allowed: map[string]string{
			"github.com/creack/pty":       "kwok requires v1.1.24",
			"github.com/go-errors/errors": "kwok requires v1.5.1 (through kustomize)",
		},
	},
}

func TestToolsModulesShareTheProductsVersions(t *testing.T) {
	root := filepath.Join("..", "..")
	product := versions(t, filepath.Join(root, "go.mod"))
	for _, m := range toolsModules {
		t.Run(m.gomod, func(t *testing.T) {
			tools := versions(t, filepath.Join(root, filepath.FromSlash(m.gomod)))
			for mod := range m.allowed {
				if tools[mod] == "" || tools[mod] == product[mod] {
					t.Errorf("%s may differ, but %s selects the product's version or none: drop it from the allowed list", mod, m.gomod)
				}
			}
			if d := mismatches(product, tools, m.gomod, m.allowed); len(d) > 0 {
				t.Errorf("%s selects other versions than the product's, so what the tool's build compiles cannot be reused by the product's:\n  %s\nfix: cd %s && go get <module>@<version in go.mod> && go mod tidy",
					m.gomod, strings.Join(d, "\n  "), filepath.Dir(m.gomod))
			}
		})
	}
}

func TestMismatches(t *testing.T) {
	tests := []struct {
		name           string
		product, tools map[string]string
		allowed        map[string]string
		want           []string
	}{
		{
			name:    "same versions",
			product: map[string]string{"golang.org/x/net": "v0.58.0", "k8s.io/api": "v0.37.2"},
			tools:   map[string]string{"golang.org/x/net": "v0.58.0", "k8s.io/api": "v0.37.2"},
		},
		{
			name:    "a module only one side has",
			product: map[string]string{"github.com/distribution/reference": "v0.6.0"},
			tools:   map[string]string{"go.etcd.io/etcd/server/v3": "v3.7.0"},
		},
		{
			name:    "an older version on the tools side",
			product: map[string]string{"golang.org/x/net": "v0.58.0", "golang.org/x/text": "v0.41.0"},
			tools:   map[string]string{"golang.org/x/net": "v0.57.0", "golang.org/x/text": "v0.41.0"},
			want:    []string{"golang.org/x/net: v0.58.0 in go.mod, v0.57.0 in hack/tools/go.mod"},
		},
		{
			name:    "an allowed difference",
			product: map[string]string{"github.com/creack/pty": "v1.1.18", "golang.org/x/net": "v0.58.0"},
			tools:   map[string]string{"github.com/creack/pty": "v1.1.24", "golang.org/x/net": "v0.57.0"},
			allowed: map[string]string{"github.com/creack/pty": "a tool needs it newer"},
			want:    []string{"golang.org/x/net: v0.58.0 in go.mod, v0.57.0 in hack/tools/go.mod"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mismatches(tt.product, tt.tools, "hack/tools/go.mod", tt.allowed)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("mismatches() = %q, want %q", got, tt.want)
			}
		})
	}
}
