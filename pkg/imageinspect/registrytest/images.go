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
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Flavour is the manifest format family of a built image or index.
type Flavour int

// The flavours.
const (
	// Docker: manifest list v2 and image manifest v2.
	Docker Flavour = iota
	// OCI: image index and image manifest.
	OCI
)

// Entry describes one manifest of an index.
type Entry struct {
	// OS and Arch of the entry's platform, and of its image's config.
	OS, Arch string
	// OSVersion goes in the entry's platform ("" leaves it out).
	OSVersion string
	// ConfigOSVersion goes in the image config; "" copies OSVersion. Set
	// NoConfigOSVersion to leave the config without one.
	ConfigOSVersion   string
	NoConfigOSVersion bool
	// NoPlatform leaves the entry without a platform object.
	NoPlatform bool
	// Attestation makes the entry a BuildKit attestation manifest
	// (unknown/unknown, vnd.docker.reference.type).
	Attestation bool
}

// Image builds a small random image whose config names os, arch and
// osVersion ("" for none).
func Image(t testing.TB, flavour Flavour, os, arch, osVersion string) v1.Image {
	t.Helper()
	img, err := random.Image(64, 1)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.OSVersion = os, arch, osVersion
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		t.Fatal(err)
	}
	if flavour == OCI {
		img = mutate.ConfigMediaType(mutate.MediaType(img, types.OCIManifestSchema1), types.OCIConfigJSON)
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
	var adds []mutate.IndexAddendum
	for _, e := range entries {
		cfgVersion := e.ConfigOSVersion
		if cfgVersion == "" && !e.NoConfigOSVersion {
			cfgVersion = e.OSVersion
		}
		img := Image(t, flavour, e.OS, e.Arch, cfgVersion)
		desc := v1.Descriptor{}
		switch {
		case e.Attestation:
			desc.Platform = &v1.Platform{OS: "unknown", Architecture: "unknown"}
			desc.Annotations = map[string]string{"vnd.docker.reference.type": "attestation-manifest"}
		case !e.NoPlatform:
			desc.Platform = &v1.Platform{OS: e.OS, Architecture: e.Arch, OSVersion: e.OSVersion}
		}
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: desc})
	}
	idx := mutate.AppendManifests(empty.Index, adds...)
	if flavour == Docker {
		idx = mutate.IndexMediaType(idx, types.DockerManifestList)
	}
	return idx
}

// Nest wraps indexes in an outer index.
func Nest(t testing.TB, flavour Flavour, inner ...v1.ImageIndex) v1.ImageIndex {
	t.Helper()
	var adds []mutate.IndexAddendum
	for _, in := range inner {
		adds = append(adds, mutate.IndexAddendum{Add: in})
	}
	idx := mutate.AppendManifests(empty.Index, adds...)
	if flavour == Docker {
		idx = mutate.IndexMediaType(idx, types.DockerManifestList)
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
	opt := remote.WithTransport(direct{s.Client().Transport})
	var digest v1.Hash
	switch c := content.(type) {
	case v1.Image:
		err = remote.Write(tag, c, opt)
		if err == nil {
			digest, err = c.Digest()
		}
	case v1.ImageIndex:
		err = remote.WriteIndex(tag, c, opt)
		if err == nil {
			digest, err = c.Digest()
		}
	default:
		t.Fatalf("Push: %T is neither an image nor an index", content)
	}
	if err != nil {
		t.Fatal(err)
	}
	return digest.String()
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
