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

package integration

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
)

// applyManifests creates every object of the multi-document YAML files, of
// any kind the API server serves, custom resources included: a kind whose
// CRD was just created is retried until the API server serves it (for up
// to a minute). Objects that exist already are left as they are.
func applyManifests(t *testing.T, e *env, files ...string) {
	t.Helper()
	disco, err := discovery.NewDiscoveryClientForConfig(e.c.Config)
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disco))
	client, err := dynamic.NewForConfig(e.c.Config)
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		for _, obj := range readUnstructured(t, file) {
			gvk := obj.GroupVersionKind()
			deadline := time.Now().Add(time.Minute)
			for {
				err := createUnstructured(e, client, mapper, obj)
				if err == nil || apierrors.IsAlreadyExists(err) {
					break
				}
				// A CRD created a moment ago is not served yet.
				if !meta.IsNoMatchError(err) && !apierrors.IsNotFound(err) || time.Now().After(deadline) {
					t.Fatalf("creating %s %s from %s: %v", gvk.Kind, obj.GetName(), file, err)
				}
				mapper.Reset()
				time.Sleep(200 * time.Millisecond)
			}
		}
	}
}

func createUnstructured(e *env, client dynamic.Interface, mapper meta.RESTMapper, obj *unstructured.Unstructured) error {
	gvk := obj.GroupVersionKind()
	mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return err
	}
	var res dynamic.ResourceInterface = client.Resource(mapping.Resource)
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		ns := obj.GetNamespace()
		if ns == "" {
			ns = "default"
		}
		res = client.Resource(mapping.Resource).Namespace(ns)
	}
	_, err = res.Create(e.ctx, obj, metav1.CreateOptions{})
	return err
}

// readUnstructured decodes every document of a YAML (or JSON) file.
func readUnstructured(t *testing.T, file string) []*unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*unstructured.Unstructured
	for {
		var obj map[string]any
		err := dec.Decode(&obj)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("decoding %s: %v", file, err)
		}
		if len(obj) == 0 { // a document of comments only
			continue
		}
		out = append(out, &unstructured.Unstructured{Object: obj})
	}
}
