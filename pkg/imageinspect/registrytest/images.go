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

package registrytest

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/windows-aware/windows-aware/internal/testimage"
)

// Flavour, Entry, Docker and OCI are testimage's, named here too so that a
// unit test writes its images with this package alone; testimage
// describes and builds them, for this registry and for registryserver's.
type (
	// Flavour is the manifest format family of a built image or index.
	Flavour = testimage.Flavour
	// Entry describes one manifest of an index.
	Entry = testimage.Entry
)

// The flavours.
const (
	// Docker: manifest list v2 and image manifest v2.
	Docker = testimage.Docker
	// OCI: image index and image manifest.
	OCI = testimage.OCI
)

// Image builds a small random image whose config names os, arch and
// osVersion ("" for none).
func Image(t testing.TB, flavour Flavour, os, arch, osVersion string) v1.Image {
	t.Helper()
	img, err := testimage.NewImage(flavour, Entry{OS: os, Arch: arch, OSVersion: osVersion})
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// WindowsImage is a Windows amd64 image whose config carries osVersion.
func WindowsImage(t testing.TB, osVersion string) v1.Image {
	return Image(t, Docker, "windows", "amd64", osVersion)
}

// Index builds an index (OCI) or manifest list (Docker) of entries.
func Index(t testing.TB, flavour Flavour, entries ...Entry) v1.ImageIndex {
	t.Helper()
	idx, err := testimage.NewIndex(flavour, entries...)
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

// Nest wraps indexes in an outer index.
func Nest(t testing.TB, flavour Flavour, inner ...v1.ImageIndex) v1.ImageIndex {
	t.Helper()
	idx, err := testimage.Nest(flavour, inner...)
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

// Push stores an image or index under repo:tag (e.g. "app:1", or
// "library/nginx:latest") straight into the registry, past faults, auth
// and counters, and returns its digest.
func (s *Server) Push(t testing.TB, repoTag string, content any) string {
	t.Helper()
	tag, err := name.NewTag(s.Host() + "/" + repoTag)
	if err != nil {
		t.Fatal(err)
	}
	a, ok := content.(testimage.Artifact)
	if !ok {
		t.Fatalf("Push: %T is neither an image nor an index", content)
	}
	digest, err := testimage.Push(tag, a, remote.WithTransport(direct{s.Client().Transport}))
	if err != nil {
		t.Fatal(err)
	}
	return digest.DigestStr()
}

// PushRawManifest stores manifest bytes of mediaType under repo:tag.
func (s *Server) PushRawManifest(t testing.TB, repoTag string, mediaType string, manifest []byte) {
	t.Helper()
	tag, err := name.NewTag(s.Host() + "/" + repoTag)
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPut, "/v2/"+tag.RepositoryStr()+"/manifests/"+tag.TagStr(), bytesReader(manifest))
	req.Header.Set("Content-Type", mediaType)
	rec := httptest.NewRecorder()
	s.handler.ServeHTTP(rec, req)
	if rec.Code != http.StatusCreated {
		t.Fatalf("PushRawManifest: %d %s", rec.Code, rec.Body)
	}
}

// direct sends requests past faults, auth and counters.
type direct struct{ inner http.RoundTripper }

func (d direct) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(directHeader, "1")
	return d.inner.RoundTrip(r)
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
