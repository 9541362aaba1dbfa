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

package manifest

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		name      string
		yaml      string
		wantKinds []string
		wantErr   string
	}{
		{name: "empty", yaml: "", wantKinds: nil},
		{name: "comments only", yaml: "# nothing\n---\n# still nothing\n", wantKinds: nil},
		{
			name:      "two documents and a comment-only one",
			yaml:      "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\n# a note\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: b}\n",
			wantKinds: []string{"*v1.Namespace", "*v1.Deployment"},
		},
		{name: "leading separator", yaml: "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\n", wantKinds: []string{"*v1.Pod"}},
		{name: "unknown kind", yaml: "apiVersion: v1\nkind: Pod\n---\napiVersion: example.com/v1\nkind: Widget\n", wantErr: "document 2"},
		{name: "not YAML", yaml: "apiVersion: v1\nkind: [Pod\n", wantErr: "document 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := Decode([]byte(tc.yaml))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var kinds []string
			for _, o := range objs {
				kinds = append(kinds, typeName(o))
			}
			if strings.Join(kinds, ",") != strings.Join(tc.wantKinds, ",") {
				t.Errorf("kinds %v, want %v", kinds, tc.wantKinds)
			}
		})
	}
}

func typeName(o any) string {
	switch o.(type) {
	case *v1.Namespace:
		return "*v1.Namespace"
	case *v1.Pod:
		return "*v1.Pod"
	case *appsv1.Deployment:
		return "*v1.Deployment"
	}
	return "other"
}

// TestReadFileShippedManifests: every manifest of the repository decodes.
func TestReadFileShippedManifests(t *testing.T) {
	for _, path := range []string{
		"../../manifests/examples/multi-release.yaml",
		"../../hack/demo/workloads/seed.yaml",
		"../../manifests/beside/deployment.yaml",
	} {
		objs, err := ReadFile(path)
		if err != nil {
			t.Errorf("%v", err)
		} else if len(objs) == 0 {
			t.Errorf("%s: no objects", path)
		}
	}
	if _, err := ReadFile("no-such-file.yaml"); err == nil {
		t.Error("a missing file gave no error")
	}
}

// FuzzDecode: any input gives objects or an error, never a panic.
func FuzzDecode(f *testing.F) {
	f.Add([]byte("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n---\n# c\n"))
	f.Add([]byte("---\n---\n"))
	f.Add([]byte("kind: Deployment\napiVersion: apps/v1\nspec: {replicas: 2}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, err := Decode(data)
		if err == nil {
			for _, o := range objs {
				if o == nil {
					t.Fatal("nil object without an error")
				}
			}
		}
	})
}
