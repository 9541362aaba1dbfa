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
	"io"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
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

// FuzzTokenRealm: a registry's WWW-Authenticate header names the token
// service the client asks next, with the credentials it holds for the
// registry. The header goes through the registry client as in a run (its
// challenge parser, its own realm check, the token request) over the
// egress guard, with the widest allowlist there is (any host, private
// addresses allowed) and transports that answer in memory. Whatever the
// header, only requests to the run's endpoint may take the transport that
// dials private addresses; a token service gets the strict one, never at
// a private address literal, and over plain HTTP only from an insecure
// registry; and a failure's detail is bounded.
func FuzzTokenRealm(f *testing.F) {
	const endpoint = "registry.example:5000"
	for _, seed := range []string{
		`Bearer realm="https://auth.example/token",service="registry.example"`,
		`Bearer realm="https://registry.example:5000/token"`,
		`Bearer realm="http://registry.example:5000/token"`,
		`Bearer realm="https://127.0.0.1:5001/token"`,
		`Bearer realm="https://localhost:5001/token"`,
		`Bearer realm="https://[::ffff:169.254.169.254]/latest"`,
		`Bearer realm="https://0x7f.1/token"`,
		`Bearer realm=https://registry.example:443/token`,
		`Bearer realm="https://REGISTRY.example:5000/t", Basic realm="x"`,
		`Basic realm="registry"`,
		`Bearer service="x"`,
		`Bearer realm="ftp://auth.example/token"`,
		`Bearer realm="https://auth.example/token?scope=` + strings.Repeat("x", 2000) + `"`,
		``,
	} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	policy, err := newEgressPolicy([]Registry{{Host: "*", AllowPrivate: true, Insecure: true}})
	if err != nil {
		f.Fatal(err)
	}
	metrics := newMetrics()
	f.Fuzz(func(t *testing.T, header string, insecure bool) {
		// The client may ping over HTTPS and plain HTTP at once.
		var mu sync.Mutex
		var onEndpoint, elsewhere []*http.Request
		g := &guardTransport{
			policy:  policy,
			metrics: metrics,
			inner: roundTripFunc(func(req *http.Request) (*http.Response, error) {
				mu.Lock()
				defer mu.Unlock()
				onEndpoint = append(onEndpoint, req)
				if req.URL.Path == "/v2/" {
					return memoryAnswer(req, http.StatusUnauthorized, http.Header{"Www-Authenticate": {header}}, ""), nil
				}
				return memoryAnswer(req, http.StatusOK, nil, `{"token":"t"}`), nil
			}),
			strict: roundTripFunc(func(req *http.Request) (*http.Response, error) {
				mu.Lock()
				defer mu.Unlock()
				elsewhere = append(elsewhere, req)
				return memoryAnswer(req, http.StatusOK, nil, `{"token":"t"}`), nil
			}),
		}
		var opts []name.Option
		if insecure {
			opts = append(opts, name.Insecure)
		}
		reg, err := name.NewRegistry(endpoint, opts...)
		if err != nil {
			t.Fatal(err)
		}
		auth := authn.FromConfig(authn.AuthConfig{Username: "u", Password: "p"})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err = transport.NewWithContext(ctx, reg, auth, g.forEndpoint(endpoint), []string{"repository:app:pull"})
		mu.Lock()
		defer mu.Unlock()
		for _, req := range onEndpoint {
			if canonicalHostPort(req.URL.Host) != endpoint {
				t.Fatalf("request to %s took the transport of the endpoint %s", req.URL.Host, endpoint)
			}
		}
		for _, req := range elsewhere {
			if canonicalHostPort(req.URL.Host) == endpoint {
				continue
			}
			if ip, err := netip.ParseAddr(strings.Trim(req.URL.Hostname(), "[]")); err == nil && forbiddenAddr(ip) {
				t.Fatalf("token request to private address %s", req.URL.Host)
			}
			if req.URL.Scheme != "https" && !(insecure && req.URL.Scheme == "http") {
				t.Fatalf("token request over %s from a registry insecure=%v", req.URL.Scheme, insecure)
			}
		}
		if err != nil {
			if _, detail := classify(err); len(detail) > maxDetailBytes {
				t.Fatalf("detail of %d bytes", len(detail))
			}
		}
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

func memoryAnswer(req *http.Request, status int, header http.Header, body string) *http.Response {
	if header == nil {
		header = http.Header{}
	}
	return &http.Response{
		StatusCode: status, Status: strconv.Itoa(status) + " " + http.StatusText(status),
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: header, Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body)), Request: req,
	}
}

// FuzzErrorDetail: a registry's error answer (any status, body and
// Content-Type) read as the registry client reads it, then classified:
// the detail is at most maxDetailBytes and valid UTF-8 (the client's
// JSON decoding makes the codes so). The Content-Type quoted when it names
// no manifest type is bounded the same way; and any text is cut to a
// prefix of itself, at a character boundary, with the mark.
func FuzzErrorDetail(f *testing.F) {
	for _, seed := range []struct {
		status      int
		body, ctype string
	}{
		{401, `{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}`, "application/json"},
		{404, `{"errors":[{"code":"MANIFEST_UNKNOWN"},{"code":"NAME_UNKNOWN"}]}`, "application/json; charset=utf-8"},
		{429, `{"errors":[{"code":"TOOMANYREQUESTS","detail":{"x":1}}]}`, ""},
		{400, string(errorBody(3, 600)), "application/json"},
		{403, `{"errors":[{"code":"` + strings.Repeat("é", 600) + `"}]}`, "application/json"},
		{500, "<html>" + strings.Repeat("é", 700) + "</html>", "text/html"},
		{502, "", "application/x-" + strings.Repeat("t", 1100)},
		{200, `{"errors":null}`, "application/vnd.oci.image.manifest.v1+json"},
	} {
		f.Add(seed.status, []byte(seed.body), seed.ctype)
	}
	req, err := http.NewRequest(http.MethodGet, "https://registry.example/v2/app/manifests/1", nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, status int, body []byte, ctype string) {
		resp := memoryAnswer(req, status, http.Header{"Content-Type": {ctype}}, string(body))
		if err := transport.CheckError(resp, http.StatusOK); err != nil {
			_, detail := classify(err)
			if len(detail) > maxDetailBytes || !utf8.ValidString(detail) {
				t.Fatalf("detail of %d bytes (valid UTF-8: %v)", len(detail), utf8.ValidString(detail))
			}
		}
		mt := mtOf(ctype)
		if kindOf(body, mt) == kindUnknown {
			if class, detail := classify(invalidf("unknown manifest media type %q", mt)); class != ClassInvalid || len(detail) > maxDetailBytes {
				t.Fatalf("%v detail of %d bytes", class, len(detail))
			}
		}
		text := string(body)
		cut := truncateDetail(text)
		switch kept, marked := strings.CutSuffix(cut, truncatedMark); {
		case len(text) <= maxDetailBytes:
			if cut != text {
				t.Fatalf("text of %d bytes cut", len(text))
			}
		case len(cut) > maxDetailBytes || !marked || !strings.HasPrefix(text, kept):
			t.Fatalf("%d bytes cut to %d: %q", len(text), len(cut), cut)
		case utf8.ValidString(text) && !utf8.ValidString(kept):
			t.Fatalf("cut inside a character: %q", kept[max(0, len(kept)-8):])
		}
	})
}
