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

package registryserver

import (
	"io"
	"log"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// inProcessRegistry is go-containerregistry's registry on a loopback HTTP
// port, for tests that need no real one.
func inProcessRegistry(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

type entryView struct {
	MediaType   types.MediaType
	Platform    *v1.Platform
	Annotations map[string]string
	Config      v1.Platform
	LayerTypes  []types.MediaType
}

// view reads a pushed artifact back: one entryView for an image, one per
// entry for an index.
func view(t *testing.T, ref name.Reference) (types.MediaType, []entryView) {
	t.Helper()
	desc, err := remote.Get(ref)
	if err != nil {
		t.Fatal(err)
	}
	imageView := func(img v1.Image) entryView {
		cfg, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		m, err := img.Manifest()
		if err != nil {
			t.Fatal(err)
		}
		v := entryView{MediaType: m.MediaType, Config: v1.Platform{OS: cfg.OS, Architecture: cfg.Architecture, Variant: cfg.Variant, OSVersion: cfg.OSVersion}}
		for _, l := range m.Layers {
			v.LayerTypes = append(v.LayerTypes, l.MediaType)
		}
		return v
	}
	if !desc.MediaType.IsIndex() {
		img, err := desc.Image()
		if err != nil {
			t.Fatal(err)
		}
		return desc.MediaType, []entryView{imageView(img)}
	}
	idx, err := desc.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	var out []entryView
	for _, m := range im.Manifests {
		img, err := idx.Image(m.Digest)
		if err != nil {
			t.Fatal(err)
		}
		v := imageView(img)
		if v.MediaType != m.MediaType {
			t.Errorf("entry %s says media type %s, its manifest %s", m.Digest, m.MediaType, v.MediaType)
		}
		v.Platform, v.Annotations = m.Platform, m.Annotations
		if d := m.Annotations[ReferenceDigestAnnotation]; d != "" {
			v.Annotations[ReferenceDigestAnnotation] = "<digest of entry " + entryIndex(im, d) + ">"
		}
		out = append(out, v)
	}
	return desc.MediaType, out
}

func entryIndex(im *v1.IndexManifest, digest string) string {
	for i, m := range im.Manifests {
		if m.Digest.String() == digest {
			return string(rune('0' + i))
		}
	}
	return "none"
}

func TestSpecBuildAndPush(t *testing.T) {
	host := inProcessRegistry(t)
	win2019 := Platform{OS: "windows", Architecture: "amd64", OSVersion: OSVersion2019}
	win2022 := Platform{OS: "windows", Architecture: "amd64", OSVersion: OSVersion2022}
	linuxARM := Platform{OS: "linux", Architecture: "arm64", Variant: "v8"}
	p := func(p Platform) *v1.Platform { return p.v1() }
	cfg := func(p Platform) v1.Platform { return *p.v1() }
	attestation := func(entry string) entryView {
		return entryView{
			MediaType:   types.OCIManifestSchema1,
			Platform:    &v1.Platform{OS: "unknown", Architecture: "unknown"},
			Annotations: map[string]string{ReferenceTypeAnnotation: AttestationManifest, ReferenceDigestAnnotation: "<digest of entry " + entry + ">"},
			Config:      v1.Platform{OS: "unknown", Architecture: "unknown"},
			LayerTypes:  []types.MediaType{InTotoMediaType},
		}
	}
	docker := []types.MediaType{types.DockerLayer}
	oci := []types.MediaType{types.OCILayer}

	cases := []struct {
		name          string
		spec          Spec
		wantMediaType types.MediaType
		want          []entryView
	}{
		{
			name:          "Docker single image",
			spec:          Spec{Flavour: Docker, Entries: []Entry{{Platform: win2019}}},
			wantMediaType: types.DockerManifestSchema2,
			want:          []entryView{{MediaType: types.DockerManifestSchema2, Config: cfg(win2019), LayerTypes: docker}},
		},
		{
			name:          "OCI single image",
			spec:          Spec{Flavour: OCI, Entries: []Entry{{Platform: win2022}}},
			wantMediaType: types.OCIManifestSchema1,
			want:          []entryView{{MediaType: types.OCIManifestSchema1, Config: cfg(win2022), LayerTypes: oci}},
		},
		{
			name:          "Docker list with a variant and a hidden os.version",
			spec:          Spec{Flavour: Docker, Index: true, Entries: []Entry{{Platform: linuxARM}, {Platform: win2022, HideOSVersion: true}}},
			wantMediaType: types.DockerManifestList,
			want: []entryView{
				{MediaType: types.DockerManifestSchema2, Platform: p(linuxARM), Config: cfg(linuxARM), LayerTypes: docker},
				{MediaType: types.DockerManifestSchema2, Platform: &v1.Platform{OS: "windows", Architecture: "amd64"}, Config: cfg(win2022), LayerTypes: docker},
			},
		},
		{
			name:          "OCI index with attestations after the images",
			spec:          Spec{Flavour: OCI, Index: true, Entries: []Entry{{Platform: win2019, Attested: true}, {Platform: win2022}, {Platform: linuxARM, Attested: true}}},
			wantMediaType: types.OCIImageIndex,
			want: []entryView{
				{MediaType: types.OCIManifestSchema1, Platform: p(win2019), Config: cfg(win2019), LayerTypes: oci},
				{MediaType: types.OCIManifestSchema1, Platform: p(win2022), Config: cfg(win2022), LayerTypes: oci},
				{MediaType: types.OCIManifestSchema1, Platform: p(linuxARM), Config: cfg(linuxARM), LayerTypes: oci},
				attestation("0"),
				attestation("2"),
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, err := tc.spec.Build()
			if err != nil {
				t.Fatal(err)
			}
			ref, err := name.ParseReference(host+"/specs/"+strings.ToLower(strings.ReplaceAll(tc.name, " ", "-"))+":1", name.Insecure)
			if err != nil {
				t.Fatal(err)
			}
			pushed, err := Push(ref, a)
			if err != nil {
				t.Fatal(err)
			}
			if want, _ := a.Digest(); pushed.DigestStr() != want.String() {
				t.Errorf("Push returned %s, want digest %s", pushed, want)
			}
			mediaType, got := view(t, ref)
			if mediaType != tc.wantMediaType {
				t.Errorf("media type %s, want %s", mediaType, tc.wantMediaType)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("read back (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSpecBuildRejects(t *testing.T) {
	win := Entry{Platform: Platform{OS: "windows", Architecture: "amd64"}}
	cases := []struct {
		name    string
		spec    Spec
		wantErr string
	}{
		{name: "image without entries", spec: Spec{Flavour: OCI}, wantErr: "needs one entry"},
		{name: "image with two entries", spec: Spec{Flavour: OCI, Entries: []Entry{win, win}}, wantErr: "needs one entry"},
		{name: "empty index", spec: Spec{Flavour: Docker, Index: true}, wantErr: "needs entries"},
		{name: "unknown flavour", spec: Spec{Flavour: "helm", Entries: []Entry{win}}, wantErr: "unknown flavour"},
		{name: "unknown index flavour", spec: Spec{Flavour: "helm", Index: true, Entries: []Entry{win}}, wantErr: "unknown flavour"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.spec.Build()
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Build: %v, want an error containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestBuildGivesNewDigests(t *testing.T) {
	spec := Spec{Flavour: OCI, Entries: []Entry{{Platform: Platform{OS: "windows", Architecture: "amd64", OSVersion: OSVersion2025}}}}
	a, err := spec.Build()
	if err != nil {
		t.Fatal(err)
	}
	b, err := spec.Build()
	if err != nil {
		t.Fatal(err)
	}
	da, _ := a.Digest()
	db, _ := b.Digest()
	if da == db {
		t.Errorf("two builds of one spec share digest %s", da)
	}
}

func TestPlatformString(t *testing.T) {
	cases := []struct {
		p    Platform
		want string
	}{
		{p: Platform{OS: "windows", Architecture: "amd64", OSVersion: OSVersion2019}, want: "windows/amd64 10.0.17763.6532"},
		{p: Platform{OS: "linux", Architecture: "arm64", Variant: "v8"}, want: "linux/arm64/v8"},
	}
	for _, tc := range cases {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("%#v.String() = %q, want %q", tc.p, got, tc.want)
		}
	}
}
