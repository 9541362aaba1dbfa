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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/windows-aware/windows-aware/internal/helmtest"
	"github.com/windows-aware/windows-aware/internal/manifest"
)

const (
	chartDir  = "../../charts/windows-aware-scheduler"
	besideDir = "../../manifests/beside"
	// The release name and namespace under which the chart's objects carry
	// the names of manifests/beside.
	besideRelease   = "windows-aware-scheduler"
	besideNamespace = "kube-system"
)

// helmTemplate renders the chart as `helm template` does, with the values
// files (YAML texts) given, under besideRelease in namespace.
func helmTemplate(t *testing.T, namespace string, values ...string) ([]byte, error) {
	t.Helper()
	return helmRun(t, []string{"template", besideRelease, chartDir, "--namespace", namespace}, values...)
}

// helmRun runs helm with args and the values files (YAML texts) given,
// returning its standard output, on failure too.
func helmRun(t *testing.T, args []string, values ...string) ([]byte, error) {
	t.Helper()
	helm := helmtest.Binary(t, "(or `make verify-chart`) to check the chart")
	args = append([]string(nil), args...)
	// Not t.TempDir(): helm splits --values at commas, which test names
	// may hold.
	dir, err := os.MkdirTemp("", "chart-values-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	for i, v := range values {
		f := filepath.Join(dir, fmt.Sprintf("values-%d.yaml", i))
		if err := os.WriteFile(f, []byte(v), 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--values", f)
	}
	cmd := exec.Command(helm, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		// The output too: helm lint reports there.
		return out, fmt.Errorf("helm %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return out, nil
}

// renderChart renders the chart and decodes every object, failing on any
// rendering error.
func renderChart(t *testing.T, namespace string, values ...string) manifestSet {
	t.Helper()
	out, err := helmTemplate(t, namespace, values...)
	if err != nil {
		t.Fatal(err)
	}
	return decodeManifests(t, "helm template", out, "")
}

// manifestSet holds decoded objects by kind/namespace/name.
type manifestSet map[string]runtime.Object

func objectKey(kind, namespace, name string) string {
	return kind + " " + namespace + "/" + name
}

func (m manifestSet) keys() []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// get returns the object of that kind and name, failing the test when there
// is none or it is not a T.
func get[T runtime.Object](t *testing.T, m manifestSet, kind, namespace, name string) T {
	t.Helper()
	obj, ok := m[objectKey(kind, namespace, name)].(T)
	if !ok {
		t.Fatalf("no %s in %v", objectKey(kind, namespace, name), m.keys())
	}
	return obj
}

// clusterScoped kinds take no namespace from a kustomization.
var clusterScoped = map[string]bool{"ClusterRole": true, "ClusterRoleBinding": true, "MutatingWebhookConfiguration": true,
	"ValidatingAdmissionPolicy": true, "ValidatingAdmissionPolicyBinding": true}

// decodeManifests decodes a multi-document YAML stream with the client-go
// scheme (kinds it does not know, such as ServiceMonitor, as unstructured),
// giving namespaced objects without one defaultNamespace.
func decodeManifests(t *testing.T, source string, data []byte, defaultNamespace string) manifestSet {
	t.Helper()
	out := manifestSet{}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", source, err)
		}
		if manifest.Empty(doc) {
			continue
		}
		obj, gvk, err := scheme.Codecs.UniversalDeserializer().Decode(doc, nil, nil)
		if runtime.IsNotRegisteredError(err) {
			u := &unstructured.Unstructured{}
			if err := utilyaml.Unmarshal(doc, &u.Object); err != nil {
				t.Fatalf("%s: %v", source, err)
			}
			obj, gvk, err = u, ptrTo(u.GroupVersionKind()), nil
		}
		if err != nil {
			t.Fatalf("%s: %v", source, err)
		}
		meta, ok := obj.(interface {
			GetName() string
			GetNamespace() string
			SetNamespace(string)
		})
		if !ok {
			t.Fatalf("%s: %s has no object metadata", source, gvk)
		}
		if meta.GetNamespace() == "" && !clusterScoped[gvk.Kind] {
			meta.SetNamespace(defaultNamespace)
		}
		key := objectKey(gvk.Kind, meta.GetNamespace(), meta.GetName())
		if _, dup := out[key]; dup {
			t.Fatalf("%s: %s twice", source, key)
		}
		out[key] = obj
	}
}

func ptrTo[T any](v T) *T { return &v }

// kustomization is the part of kustomize's format that manifests/beside
// uses. Strict decoding fails on any other field, so that the loader below
// never silently ignores a feature it does not implement.
type kustomization struct {
	APIVersion         string   `json:"apiVersion"`
	Kind               string   `json:"kind"`
	Namespace          string   `json:"namespace"`
	Resources          []string `json:"resources"`
	ConfigMapGenerator []struct {
		Name    string   `json:"name"`
		Files   []string `json:"files"`
		Options struct {
			Labels map[string]string `json:"labels"`
		} `json:"options"`
	} `json:"configMapGenerator"`
	GeneratorOptions struct {
		DisableNameSuffixHash bool `json:"disableNameSuffixHash"`
	} `json:"generatorOptions"`
}

// besideManifests loads manifests/beside as `kubectl apply -k` would.
func besideManifests(t *testing.T) manifestSet {
	t.Helper()
	return kustomizeManifests(t, besideDir)
}

// kustomizeManifests loads the kustomization in dir as `kubectl apply -k`
// would: its resources in the kustomization's namespace, and the generated
// ConfigMaps.
func kustomizeManifests(t *testing.T, dir string) manifestSet {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var k kustomization
	if err := unmarshalStrict(data, &k); err != nil {
		t.Fatalf("kustomization.yaml uses more of kustomize than this test reads: %v", err)
	}
	if len(k.ConfigMapGenerator) > 0 && !k.GeneratorOptions.DisableNameSuffixHash {
		t.Fatal("kustomization.yaml: generated names with a hash suffix are not modelled here")
	}
	out := manifestSet{}
	for _, r := range k.Resources {
		data, err := os.ReadFile(filepath.Join(dir, r))
		if err != nil {
			t.Fatal(err)
		}
		for key, obj := range decodeManifests(t, r, data, k.Namespace) {
			out[key] = obj
		}
	}
	for _, g := range k.ConfigMapGenerator {
		var doc bytes.Buffer
		labels, _ := json.Marshal(g.Options.Labels)
		fmt.Fprintf(&doc, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s, namespace: %s, labels: %s}\ndata:\n", g.Name, k.Namespace, labels)
		for _, f := range g.Files {
			content, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			// A JSON string is a YAML double-quoted scalar.
			quoted, _ := json.Marshal(string(content))
			fmt.Fprintf(&doc, "  %s: %s\n", filepath.Base(f), quoted)
		}
		for key, obj := range decodeManifests(t, "configMapGenerator "+g.Name, doc.Bytes(), k.Namespace) {
			out[key] = obj
		}
	}
	return out
}

// unmarshalStrict decodes YAML into v, failing on fields v does not have.
func unmarshalStrict(data []byte, v any) error {
	js, err := utilyaml.ToJSON(data)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
