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

package perf

import (
	"bytes"
	"fmt"
	"os"
	"testing"
	"text/template"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	v1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/windows-aware/windows-aware/internal/synthetic"
)

// templateFuncs are the scheduler_perf template functions the templates use.
var templateFuncs = template.FuncMap{
	"Mod":         func(a, b int) int { return a % b },
	"DivideInt":   func(a, b int) int { return a / b },
	"AddInt":      func(a, b int) int { return a + b },
	"MultiplyInt": func(a, b int) int { return a * b },
}

func render(t *testing.T, path string, env map[string]any, into any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := template.New(path).Funcs(templateFuncs).Parse(string(data))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, env); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if err := yaml.UnmarshalStrict(buf.Bytes(), into); err != nil {
		t.Fatalf("%s with %v: %v\n%s", path, env, err, buf.String())
	}
}

// TestTemplatesMatchCluster keeps the whole-scheduler benchmark on the same
// cluster and pods as the plugin-level one and the oracle: the node and pod
// templates must render what package synthetic builds, in every slot.
func TestTemplatesMatchCluster(t *testing.T) {
	for i := 0; i < 60; i++ {
		var got v1.Node
		render(t, "templates/node-mixed.yaml", map[string]any{"Index": i, "Count": 60}, &got)
		want := synthetic.Node(i)
		delete(want.Labels, "kubernetes.io/hostname") // the harness sets it
		opts := []cmp.Option{cmpopts.EquateEmpty()}
		if diff := cmp.Diff(want.Labels, got.Labels, opts...); diff != "" {
			t.Errorf("node %d labels (-cluster +template):\n%s", i, diff)
		}
		if diff := cmp.Diff(want.Spec.Taints, got.Spec.Taints, opts...); diff != "" {
			t.Errorf("node %d taints (-cluster +template):\n%s", i, diff)
		}
		if diff := cmp.Diff(want.Status.NodeInfo, got.Status.NodeInfo, opts...); diff != "" {
			t.Errorf("node %d nodeInfo (-cluster +template):\n%s", i, diff)
		}
		if diff := cmp.Diff(want.Status.Capacity, got.Status.Capacity, opts...); diff != "" {
			t.Errorf("node %d capacity (-cluster +template):\n%s", i, diff)
		}
	}
	for _, variant := range []synthetic.Variant{synthetic.WindowsAware, synthetic.StockSelectors, synthetic.StockPlain} {
		for i := 0; i < 20; i++ {
			var got v1.Pod
			render(t, "templates/pod-mixed.yaml", map[string]any{"Index": i, "Count": 20, "variant": string(variant)}, &got)
			want := synthetic.KindOf(i).Pod("", variant)
			// Names and namespaces are the harness's.
			got.ObjectMeta.GenerateName, want.ObjectMeta = "", v1.Pod{}.ObjectMeta
			want.Labels = synthetic.KindOf(i).Pod("", variant).Labels
			if diff := cmp.Diff(want.Labels, got.Labels); diff != "" {
				t.Errorf("%s pod %d labels (-cluster +template):\n%s", variant, i, diff)
			}
			if diff := cmp.Diff(want.Spec, got.Spec, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s pod %d (%s) spec (-cluster +template):\n%s", variant, i, synthetic.KindOf(i).Name, diff)
			}
		}
	}
	fmt.Fprintln(os.Stderr, "templates match package synthetic")
}
