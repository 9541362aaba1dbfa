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

package explain

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
)

// Object is one object read from a manifest or the cluster.
type Object struct {
	// Source is where it came from: a file name, "-" for standard input,
	// or "cluster".
	Source string
	Object runtime.Object
	// Live is set for an object read from the cluster, whose pods have
	// been through admission already.
	Live bool
}

// Skipped is an object of a kind that has no pod template, or that this
// program does not know: a custom resource, say.
type Skipped struct {
	Source string `json:"source"`
	Kind   string `json:"kind"`
	Name   string `json:"name,omitempty"`
}

// ReadManifests decodes every object of a stream of YAML documents or JSON
// objects, as kubectl apply reads them (Helm's output included): typed
// objects of client-go's scheme, Lists unpacked. Objects of kinds the
// scheme does not hold are returned as skipped.
func ReadManifests(r io.Reader, source string) ([]Object, []Skipped, error) {
	var objects []Object
	var skipped []Skipped
	decoder := yaml.NewYAMLOrJSONDecoder(r, 4096)
	for doc := 1; ; doc++ {
		var raw runtime.RawExtension
		if err := decoder.Decode(&raw); err != nil {
			if errors.Is(err, io.EOF) {
				return objects, skipped, nil
			}
			return nil, nil, fmt.Errorf("%s: document %d: %w", source, doc, err)
		}
		data := bytes.TrimSpace(raw.Raw)
		if len(data) == 0 || bytes.Equal(data, []byte("null")) {
			continue // an empty document: a comment, or a template rendered to nothing
		}
		objs, skips, err := decode(data, source)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: document %d: %w", source, doc, err)
		}
		objects = append(objects, objs...)
		skipped = append(skipped, skips...)
	}
}

// decode decodes one document, unpacking a List.
func decode(data []byte, source string) ([]Object, []Skipped, error) {
	obj, gvk, err := scheme.Codecs.UniversalDeserializer().Decode(data, nil, nil)
	if err != nil {
		if runtime.IsNotRegisteredError(err) && gvk != nil {
			return nil, []Skipped{{Source: source, Kind: gvk.Kind, Name: nameOf(data)}}, nil
		}
		return nil, nil, err
	}
	list, ok := obj.(*v1.List)
	if !ok {
		return []Object{{Source: source, Object: obj}}, nil, nil
	}
	var objects []Object
	var skipped []Skipped
	for i, item := range list.Items {
		objs, skips, err := decode(item.Raw, source)
		if err != nil {
			return nil, nil, fmt.Errorf("List item %d: %w", i, err)
		}
		objects = append(objects, objs...)
		skipped = append(skipped, skips...)
	}
	return objects, skipped, nil
}

// nameOf reads metadata.name of an object of a kind the scheme does not
// hold, for the list of skipped objects.
func nameOf(data []byte) string {
	var meta struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if yaml.Unmarshal(data, &meta) != nil {
		return ""
	}
	return meta.Metadata.Name
}
