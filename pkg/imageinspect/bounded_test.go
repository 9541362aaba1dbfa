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

package imageinspect

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// hostileIndex is a manifest list of n Windows entries, every one pointing
// at child (a manifest the registry holds), with builds cycling through
// distinct values: what anyone who can push an image can write.
func hostileIndex(child string, n, distinct int) []byte {
	var b strings.Builder
	b.WriteString(`{"schemaVersion":2,"mediaType":"application/vnd.docker.distribution.manifest.list.v2+json","manifests":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"mediaType":"application/vnd.docker.distribution.manifest.v2+json","digest":%q,"size":1,"platform":{"architecture":"amd64","os":"windows","os.version":"10.0.%d.1"}}`,
			child, 20348+i%distinct)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

func TestDecodeIndexEntries(t *testing.T) {
	entry := `{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"` + someDigest + `","size":1}`
	list := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = entry
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	tests := []struct {
		name    string
		index   string
		limit   int
		seen    int // entries counted before, as by an outer index
		want    int
		wantErr string
	}{
		{name: "under the limit", index: `{"schemaVersion":2,"manifests":` + list(3) + `}`, limit: 4, want: 3},
		{name: "at the limit", index: `{"schemaVersion":2,"manifests":` + list(4) + `,"annotations":{"a":"b"}}`, limit: 4, want: 4},
		{name: "over the limit names the count, the limit and the arg", index: `{"manifests":` + list(9) + `}`, limit: 4,
			wantErr: "image index has 9 entries, more than the limit of 4 (imageResolution.maxIndexEntries)"},
		{name: "nested: entries of the outer index count", index: `{"manifests":` + list(3) + `}`, limit: 4, seen: 2,
			wantErr: "image index has at least 5 entries, more than the limit of 4"},
		{name: "key in another case, as encoding/json reads it", index: `{"Manifests":` + list(5) + `}`, limit: 4,
			wantErr: "has 5 entries"},
		{name: "a repeated key counts both", index: `{"manifests":` + list(3) + `,"manifests":` + list(2) + `}`, limit: 4,
			wantErr: "has 5 entries"},
		{name: "null", index: `{"manifests":null}`, limit: 4, want: 0},
		{name: "not a list", index: `{"manifests":{}}`, limit: 4, wantErr: "manifests is not a list"},
		{name: "not an object", index: `[]`, limit: 4, wantErr: "image index"},
		{name: "data after the index", index: `{"manifests":[]} {}`, limit: 4, wantErr: "data after the index"},
		{name: "bad digest", index: `{"manifests":[{"digest":"md5:x"}]}`, limit: 4, wantErr: "image index"},
		{name: "truncated past the limit", index: `{"manifests":` + list(5)[:len(list(5))-3], limit: 4, wantErr: "image index"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &entryBudget{limit: tt.limit, seen: tt.seen}
			got, err := decodeIndexEntries([]byte(tt.index), b)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				if class, _ := classify(err); class != ClassInvalid {
					t.Errorf("class %v, want invalid", class)
				}
				return
			}
			if err != nil || len(got) != tt.want {
				t.Fatalf("got %d entries, %v; want %d", len(got), err, tt.want)
			}
		})
	}
}

// TestIndexEntryLimit: an index over maxIndexEntries fails as invalid,
// naming the image, the count and the limit; nested indexes count
// together; repeated (os, architecture, build) entries are stored once.
func TestIndexEntryLimit(t *testing.T) {
	s := registrytest.New(t)
	child := s.Push(t, "hostile:base", registrytest.WindowsImage(t, v20348))
	s.PushRawManifest(t, "hostile:at-limit", string(types.DockerManifestList), hostileIndex(child, 8, 8))
	s.PushRawManifest(t, "hostile:over-limit", string(types.DockerManifestList), hostileIndex(child, 9, 9))
	s.PushRawManifest(t, "hostile:huge", string(types.DockerManifestList), hostileIndex(child, 15000, 15000))
	s.PushRawManifest(t, "hostile:repeats", string(types.DockerManifestList), hostileIndex(child, 8, 2))
	entries := []registrytest.Entry{{OS: "linux", Arch: "amd64"}, {OS: "windows", Arch: "amd64", OSVersion: v17763}, {OS: "windows", Arch: "amd64", OSVersion: v20348}}
	s.Push(t, "nested:1", registrytest.Nest(t, registrytest.OCI,
		registrytest.Index(t, registrytest.OCI, entries...), registrytest.Index(t, registrytest.OCI, entries...), registrytest.Index(t, registrytest.OCI, entries...)))

	h := newHarness(t, Config{Registries: []Registry{registryFor(s)}, MaxIndexEntries: 8, MaxAutoRetries: 1})
	tests := []struct {
		repo      string
		wantErr   []string // parts of the error; none: resolved
		platforms int
	}{
		{repo: "hostile:at-limit", platforms: 8},
		{repo: "hostile:repeats", platforms: 2},
		{repo: "hostile:over-limit", wantErr: []string{"has 9 entries", "limit of 8", "imageResolution.maxIndexEntries"}},
		{repo: "hostile:huge", wantErr: []string{"has 15000 entries", "limit of 8"}},
		// 3 outer entries, then 3 of each inner index: the third inner
		// index passes 8 and is not finished.
		{repo: "nested:1", wantErr: []string{"has at least 9 entries", "limit of 8"}},
	}
	for _, tt := range tests {
		t.Run(tt.repo, func(t *testing.T) {
			ref := s.Ref(tt.repo)
			res := h.await(t, ref, PullSecrets{})
			if len(tt.wantErr) == 0 {
				if res.State != StateResolved || len(res.Platforms) != tt.platforms {
					t.Fatalf("%s = %v %v (%v), want %d platforms", ref, res.State, res.Platforms, res.Err, tt.platforms)
				}
				if got := windows.DistinctPlatforms(res.Platforms); len(got) != len(res.Platforms) {
					t.Errorf("platforms repeat: %v", res.Platforms)
				}
				return
			}
			if res.State != StateFailed || res.Class != ClassInvalid {
				t.Fatalf("%s = %v %v (%v), want failed invalid", ref, res.State, res.Class, res.Err)
			}
			for _, part := range append([]string{ref}, tt.wantErr...) {
				if !strings.Contains(res.Err.Error(), part) {
					t.Errorf("error %q does not name %q", res.Err, part)
				}
			}
		})
	}
}

// TestRunTimeout: a registry that answers each request within
// RequestTimeout, but slowly, cannot hold a worker past RunTimeout.
func TestRunTimeout(t *testing.T) {
	s := registrytest.New(t)
	s.Push(t, "dribble:1", registrytest.WindowsImage(t, v17763))
	s.AddFault(registrytest.Fault{Match: registrytest.OnKind("", "manifests"), Times: -1, Delay: 400 * time.Millisecond})
	h := newHarness(t, Config{Registries: []Registry{registryFor(s)}, RequestTimeout: 2 * time.Second, RunTimeout: 600 * time.Millisecond, MaxAutoRetries: 1})
	ref := s.Ref("dribble:1")
	start := time.Now()
	res := h.await(t, ref, PullSecrets{})
	if res.State != StateFailed || res.Class != ClassUnavailable {
		t.Fatalf("%s = %v %v (%v) after %v, want failed unavailable", ref, res.State, res.Class, res.Err, time.Since(start))
	}
	for _, part := range []string{ref, s.Host(), "run deadline of 600ms"} {
		if !strings.Contains(res.Err.Error(), part) {
			t.Errorf("error %q does not name %q", res.Err, part)
		}
	}
}

func TestRunTimeoutDefault(t *testing.T) {
	cfg := withDefaults(Config{RequestTimeout: 2 * time.Second})
	if cfg.RunTimeout != RunTimeoutRequests*2*time.Second || cfg.MaxIndexEntries != DefaultMaxIndexEntries {
		t.Errorf("RunTimeout %v, MaxIndexEntries %d", cfg.RunTimeout, cfg.MaxIndexEntries)
	}
}
