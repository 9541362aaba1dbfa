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

package reviewgate

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCount(t *testing.T) {
	tests := []struct {
		name  string
		raw   string
		limit Counts
		want  Counts
		err   bool
	}{
		{
			name: "a pod's three lists",
			raw: `{"request":{"uid":"u","object":{"kind":"Pod","spec":{"containers":[{"name":"a","image":"nginx:1.27"},{"name":"b","image":"busybox"}],` +
				`"initContainers":[{"name":"i","image":"x"}],"ephemeralContainers":[{"name":"e","image":"debug"}]}}}}`,
			want: Counts{Containers: 4, ImageBytes: len("nginx:1.27") + len("busybox") + len("x") + len("debug")},
		},
		{
			name: "a CronJob's template, object and old object",
			raw: `{"request":{"object":{"spec":{"jobTemplate":{"spec":{"template":{"spec":{"containers":[{"image":"a"}]}}}}}},` +
				`"oldObject":{"spec":{"jobTemplate":{"spec":{"template":{"spec":{"containers":[{"image":"bb"}]}}}}}}}}`,
			want: Counts{Containers: 2, ImageBytes: 3},
		},
		{
			name: "image keys outside containers, and a containers key that is no array",
			raw:  `{"image":"zzz","spec":{"containers":{"image":"y"},"volumes":[{"image":{"reference":"q"}}],"x":[{"containers":[]}]}}`,
			want: Counts{},
		},
		{
			name: "an image that is not a string, nested values before it",
			raw:  `{"containers":[{"env":[{"name":"image","value":"v"}],"ports":[1,2],"image":7,"resources":{"limits":{"cpu":"1"}}},{"image":"ok"}]}`,
			want: Counts{Containers: 2, ImageBytes: 2},
		},
		{
			name:  "stops past the container limit",
			raw:   `{"containers":[{},{},{},{},{}` + strings.Repeat(`,{}`, 1000) + `]}`,
			limit: Counts{Containers: 3},
			want:  Counts{Containers: 4},
		},
		{
			name:  "stops past the image limit",
			raw:   `{"containers":[{"image":"aaaa"},{"image":"bbbb"},{"image":"cccc"}]}`,
			limit: Counts{ImageBytes: 5},
			want:  Counts{Containers: 2, ImageBytes: 8},
		},
		{name: "not JSON", raw: `{"containers":[{"image":`, err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Count([]byte(tt.raw), tt.limit)
			if (err != nil) != tt.err {
				t.Fatalf("Count: error %v, want an error: %v", err, tt.err)
			}
			if !tt.err && got != tt.want {
				t.Errorf("Count = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// FuzzCount holds Count to a count written independently, over the
// document decoded whole into maps and slices. Count never counts less
// than that (a key given twice is counted twice by the walk, where the
// decoder keeps the last: the walk errs on the side of cost), never panics
// whatever the bytes, and stops right past a limit.
func FuzzCount(f *testing.F) {
	for _, seed := range []string{
		`{"spec":{"containers":[{"image":"a"},{"image":"bb"}],"initContainers":[{"image":"c"}]}}`,
		`{"request":{"object":{"spec":{"template":{"spec":{"ephemeralContainers":[{"image":"x","env":[{"image":"no"}]}]}}}}}}`,
		`{"containers":[{"containers":[{"image":"nested"}]}]}`,
		`[{"containers":[{}]},{"initContainers":[[{"image":"in an array"}]]}]`,
		`{"containers":[{"image":"a","image":"twice"}]}`,
		`{"containers":[`, `"image"`, `{}`, `[]`, ``,
	} {
		f.Add([]byte(seed), 0, 0)
	}
	f.Fuzz(func(t *testing.T, raw []byte, maxContainers, maxImageBytes int) {
		full, fullErr := Count(raw, Counts{})
		limit := Counts{Containers: max(maxContainers, 0) % 64, ImageBytes: max(maxImageBytes, 0) % 256}
		got, err := Count(raw, limit)
		if err == nil && fullErr == nil {
			if got.Containers > full.Containers || got.ImageBytes > full.ImageBytes {
				t.Fatalf("Count(%q) = %+v with limit %+v, more than %+v without", raw, got, limit, full)
			}
			if limit.Containers > 0 && full.Containers > limit.Containers && got.Containers != limit.Containers+1 &&
				(limit.ImageBytes == 0 || got.ImageBytes <= limit.ImageBytes) {
				t.Fatalf("Count(%q) = %+v did not stop right past the container limit %d", raw, got, limit.Containers)
			}
		}
		if fullErr != nil {
			return
		}
		var doc any
		if json.Unmarshal(raw, &doc) != nil {
			return // the walk does not check all of JSON; the handler's decode does
		}
		if want := countDecoded(doc, false); full.Containers < want.Containers || full.ImageBytes < want.ImageBytes {
			t.Fatalf("Count(%q) = %+v, less than the decoded document's %+v", raw, full, want)
		}
	})
}

// countDecoded is the test's own count of what Count counts, over a
// decoded document, written apart from Count to check it: the objects
// of an array under a container key are containers, and a string image of
// a container counts its bytes.
func countDecoded(v any, inContainers bool) Counts {
	var c Counts
	switch v := v.(type) {
	case map[string]any:
		if inContainers {
			c.Containers++
			if s, ok := v["image"].(string); ok {
				c.ImageBytes += len(s)
			}
		}
		for k, child := range v {
			if arr, ok := child.([]any); ok && containerArrays[k] {
				for _, e := range arr {
					add(&c, countDecoded(e, true))
				}
				continue
			}
			add(&c, countDecoded(child, false))
		}
	case []any:
		for _, e := range v {
			add(&c, countDecoded(e, false))
		}
	}
	return c
}

func add(c *Counts, d Counts) {
	c.Containers += d.Containers
	c.ImageBytes += d.ImageBytes
}
