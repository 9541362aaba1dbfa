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
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
)

// rewrite changes the answers of a real registry to the requests it
// matches, as a hostile registry would send them.
type rewrite struct {
	match  func(*http.Request) bool
	modify func(front string, resp *http.Response)
}

// newFront serves backend's content on another loopback port, through a
// proxy that applies the first matching rewrite to each answer. It
// returns the front's host:port.
func newFront(t *testing.T, backend *registrytest.Server, rewrites ...rewrite) string {
	t.Helper()
	target, err := url.Parse(backend.URL)
	if err != nil {
		t.Fatal(err)
	}
	var host string
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ModifyResponse = func(resp *http.Response) error {
		for _, rw := range rewrites {
			if rw.match(resp.Request) {
				rw.modify(host, resp)
				break
			}
		}
		return nil
	}
	front := httptest.NewServer(proxy)
	t.Cleanup(front.Close)
	host = strings.TrimPrefix(front.URL, "http://")
	return host
}

// answer replaces an answer's status, headers and body.
func answer(resp *http.Response, status int, header http.Header, body []byte) {
	resp.Body.Close()
	resp.StatusCode = status
	resp.Status = strconv.Itoa(status) + " " + http.StatusText(status)
	resp.Header = header.Clone()
	if resp.Header == nil {
		resp.Header = http.Header{}
	}
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	resp.ContentLength = int64(len(body))
	resp.Body = io.NopCloser(bytes.NewReader(body))
}

// errorBody is a distribution error body with n error codes of size
// bytes each.
func errorBody(n, size int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"errors":[`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"code":"` + strings.Repeat("C", size) + `","message":"m"}`)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// What a failed entry may keep of a registry's text: a detail of at most
// 1 KiB, cut with a mark; the whole message adds the image, the registry
// host and the class's phrase (all short here).
const (
	wantMaxDetail = 1 << 10
	wantCutMark   = "(truncated)"
	maxErrorText  = wantMaxDetail + 256
)

// TestRegistryTextBounded: whatever text a registry sends (error bodies,
// error codes, Content-Type, a token service's answer, a digest in a
// manifest), a failed entry keeps at most about 1 KiB of it, and an answer
// whose headers are larger than the transport reads fails as such.
func TestRegistryTextBounded(t *testing.T) {
	const mib = 1 << 20
	onManifestGET := registrytest.OnKind(http.MethodGet, "manifests")
	onAny := func(*http.Request) bool { return true }
	tests := []struct {
		name string
		// ref is the repository (with :tag or @digest) to resolve; the
		// backend holds app:1 and app:huge-digest.
		ref       string
		rewrites  []rewrite
		wantClass ErrorClass
		// wantCut: the detail says it was cut.
		wantCut bool
		// wantDetail is a part of the detail.
		wantDetail string
	}{
		{
			name: "error body of 1 MiB",
			ref:  "app:1",
			rewrites: []rewrite{{match: onManifestGET, modify: func(_ string, resp *http.Response) {
				answer(resp, http.StatusBadRequest, http.Header{"Content-Type": {"application/json"}}, errorBody(1, mib))
			}}},
			wantClass: ClassUnavailable,
		},
		{
			name: "error body just under the client's cap, every byte an error code",
			ref:  "app:1",
			rewrites: []rewrite{{match: onManifestGET, modify: func(_ string, resp *http.Response) {
				answer(resp, http.StatusBadRequest, http.Header{"Content-Type": {"application/json"}}, errorBody(60, 1000))
			}}},
			wantClass: ClassInvalid, wantCut: true, wantDetail: "HTTP 400 CCC",
		},
		{
			// Its answer is left out whole: it may hold other credentials.
			name: "token service answering 60 KiB without a token",
			ref:  "app:1",
			rewrites: []rewrite{
				{match: registrytest.OnKind("", "ping"), modify: func(front string, resp *http.Response) {
					answer(resp, http.StatusUnauthorized, http.Header{"Www-Authenticate": {`Bearer realm="http://` + front + `/token",service="s"`}}, nil)
				}},
				{match: registrytest.OnKind("", "token"), modify: func(_ string, resp *http.Response) {
					answer(resp, http.StatusOK, http.Header{"Content-Type": {"application/json"}}, []byte(`{"padding":"`+strings.Repeat("p", 60<<10)+`"}`))
				}},
			},
			wantClass: ClassUnavailable, wantDetail: "token service answered without a token",
		},
		{
			name: "Content-Type of 60 KiB",
			ref:  "app:1",
			rewrites: []rewrite{{match: onManifestGET, modify: func(_ string, resp *http.Response) {
				resp.Header.Set("Content-Type", "application/x-"+strings.Repeat("t", 60<<10))
			}}},
			wantClass: ClassInvalid, wantCut: true, wantDetail: "unknown manifest media type",
		},
		{
			name:      "manifest whose config digest is 1 MiB",
			ref:       "app:huge-digest",
			wantClass: ClassInvalid, wantCut: true, wantDetail: "image manifest",
		},
		{
			name: "Content-Type of 1 MiB",
			ref:  "app:1",
			rewrites: []rewrite{{match: onManifestGET, modify: func(_ string, resp *http.Response) {
				resp.Header.Set("Content-Type", "application/x-"+strings.Repeat("t", mib))
			}}},
			wantClass: ClassInvalid, wantDetail: "response headers larger than 64 KiB",
		},
		{
			name: "a header of 1 MiB on every answer",
			ref:  "app:1",
			rewrites: []rewrite{{match: onAny, modify: func(_ string, resp *http.Response) {
				resp.Header.Set("X-Padding", strings.Repeat("h", mib))
			}}},
			wantClass: ClassInvalid, wantDetail: "response headers larger than 64 KiB",
		},
	}
	backend := registrytest.New(t)
	backend.Push(t, "app:1", registrytest.WindowsImage(t, v17763))
	huge := `{"schemaVersion":2,"mediaType":"` + string(types.OCIManifestSchema1) + `","config":{"mediaType":"` + string(types.OCIConfigJSON) +
		`","size":2,"digest":"sha256:` + strings.Repeat("a", mib) + `"},"layers":[]}`
	backend.PushRawManifest(t, "app:huge-digest", string(types.OCIManifestSchema1), []byte(huge))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			front := newFront(t, backend, tt.rewrites...)
			h := newHarness(t, Config{
				Registries:     []Registry{{Host: front, AllowPrivate: true, Insecure: true}},
				RequestTimeout: 5 * time.Second, MaxAutoRetries: 1,
			})
			res := h.await(t, front+"/"+tt.ref, PullSecrets{})
			if res.State != StateFailed || res.Class != tt.wantClass {
				t.Fatalf("%v %v, want failed %v (error of %d bytes)", res.State, res.Class, tt.wantClass, len(errText(res)))
			}
			e := ErrorOf(res)
			if e == nil {
				t.Fatalf("no *Error in %v", res.Err)
			}
			if n := len(e.Detail); n > wantMaxDetail {
				t.Errorf("detail of %d bytes, more than %d", n, wantMaxDetail)
			}
			if n := len(e.Error()); n > maxErrorText {
				t.Errorf("error of %d bytes, more than %d", n, maxErrorText)
			}
			if cut := strings.HasSuffix(e.Detail, wantCutMark); cut != tt.wantCut {
				t.Errorf("detail cut: %v, want %v (%.200q)", cut, tt.wantCut, e.Detail)
			}
			if !strings.Contains(e.Detail, tt.wantDetail) {
				t.Errorf("detail %.300q does not say %q", e.Detail, tt.wantDetail)
			}
		})
	}
}

func errText(res Result) string {
	if res.Err == nil {
		return ""
	}
	return res.Err.Error()
}
