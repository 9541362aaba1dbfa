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
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/windows-aware/windows-aware/pkg/windows"
)

// FuzzParseRef: pods name any string as an image; no reference may panic,
// and a key must parse back to itself.
func FuzzParseRef(f *testing.F) {
	for _, seed := range []string{"nginx", "mcr.microsoft.com/windows/servercore:ltsc2022", "a:1@" + someDigest, "[::1]:5000/x:y", "", "UPPER/x", "a/b/c/d:e"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := parseRef(s)
		if err != nil {
			return
		}
		if r.key == "" || r.name == "" || r.host == "" {
			t.Fatalf("parseRef(%q) = %+v: empty parts", s, r)
		}
		if (r.digest == "") == (r.tag == "") {
			t.Fatalf("parseRef(%q) = %+v: want exactly one of tag and digest", s, r)
		}
		again, err := parseRef(r.key)
		if err != nil || again.key != r.key {
			t.Fatalf("key %q of %q does not parse back to itself: %+v %v", r.key, s, again, err)
		}
	})
}

// FuzzKindOf: any registry may answer anything.
func FuzzKindOf(f *testing.F) {
	for _, seed := range []string{`{"schemaVersion":2,"manifests":[]}`, `{"schemaVersion":1}`, `{"mediaType":"x"}`, `[]`, ``} {
		f.Add([]byte(seed), "application/json")
	}
	f.Fuzz(func(t *testing.T, manifest []byte, mt string) {
		_ = kindOf(manifest, mtOf(mt))
	})
}

// FuzzParseRetryAfter: the delay is never negative nor over the cap.
func FuzzParseRetryAfter(f *testing.F) {
	for _, seed := range []string{"1", "120", "-1", "Wed, 21 Oct 2015 07:28:00 GMT", "", "1e9"} {
		f.Add(seed)
	}
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		d := parseRetryAfter(v, now)
		if d < 0 || d > maxRetryAfter {
			t.Fatalf("parseRetryAfter(%q) = %v", v, d)
		}
		if strings.TrimSpace(v) == "" && d != 0 {
			t.Fatalf("parseRetryAfter(%q) = %v for nothing", v, d)
		}
	})
}

func mtOf(s string) types.MediaType { return types.MediaType(s) }

// FuzzIndexPlatforms: any registry may answer any manifest. Decoding it
// must never panic, never return more platforms than the entry limit
// allows, never return a platform twice, and must refuse every index
// encoding/json reads with more entries than the limit. The fetcher has
// no child reads left, so that an entry that would need the network fails
// instead.
func FuzzIndexPlatforms(f *testing.F) {
	const limit = 4
	entry := func(os, arch, version string) string {
		return `{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"` + someDigest + `","size":1,"platform":{"os":"` + os + `","architecture":"` + arch + `","os.version":"` + version + `"}}`
	}
	for _, seed := range []string{
		`{"schemaVersion":2,"manifests":[` + entry("windows", "amd64", "10.0.17763.1") + `,` + entry("linux", "arm64", "") + `]}`,
		`{"schemaVersion":2,"manifests":[` + strings.Repeat(entry("windows", "amd64", "10.0.20348.1")+`,`, 5) + entry("windows", "amd64", "10.0.20348.2") + `]}`,
		`{"manifests":[` + entry("unknown", "unknown", "") + `]}`,
		`{"manifests":[{"mediaType":"application/vnd.oci.image.index.v1+json","digest":"` + someDigest + `","size":1}]}`,
		`{"Manifests":null,"manifests":[]}`,
		`{"schemaVersion":2,"config":{}}`,
		string(hostileIndex(someDigest, 6, 3)),
	} {
		f.Add([]byte(seed), string(types.OCIImageIndex))
	}
	f.Add([]byte(`{"schemaVersion":1}`), "")
	f.Fuzz(func(t *testing.T, manifest []byte, mt string) {
		fe := &fetcher{children: maxChildFetches, entries: entryBudget{limit: limit}}
		ps, err := fe.distinctPlatformsOf(context.Background(), manifest, mtOf(mt))
		if err != nil {
			if class, _ := classify(err); class != ClassInvalid {
				t.Fatalf("error %v of class %v, want invalid", err, class)
			}
			return
		}
		if len(ps) > limit || fe.entries.seen > limit {
			t.Fatalf("%d platforms from %d entries, over the limit of %d", len(ps), fe.entries.seen, limit)
		}
		if len(windows.DistinctPlatforms(ps)) != len(ps) {
			t.Fatalf("platforms repeat: %v", ps)
		}
		var idx v1.IndexManifest
		if kindOf(manifest, mtOf(mt)) == kindIndex && json.Unmarshal(manifest, &idx) == nil && len(idx.Manifests) > limit {
			t.Fatalf("an index of %d entries was read with a limit of %d", len(idx.Manifests), limit)
		}
	})
}
