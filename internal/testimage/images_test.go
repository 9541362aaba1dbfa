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

package testimage_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/windows-aware/windows-aware/internal/testimage"
	// The images are pushed to registrytest's in-process registry, which
	// builds its own with this package: hence package testimage_test, so
	// that the import makes no cycle.
	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
)

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
		if d := m.Annotations[testimage.ReferenceDigestAnnotation]; d != "" {
			v.Annotations[testimage.ReferenceDigestAnnotation] = "<digest of entry " + entryIndex(im, d) + ">"
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
	host := registrytest.New(t).Host()
	win2019 := testimage.Windows(testimage.OSVersion2019)
	win2022 := testimage.Windows(testimage.OSVersion2022)
	linuxARM := testimage.Entry{OS: "linux", Arch: "arm64", Variant: "v8"}
	p := func(e testimage.Entry) *v1.Platform {
		return &v1.Platform{OS: e.OS, Architecture: e.Arch, Variant: e.Variant, OSVersion: e.OSVersion}
	}
	cfg := func(e testimage.Entry) v1.Platform { return *p(e) }
	attestation := func(entry string) entryView {
		v := entryView{
			MediaType:   types.OCIManifestSchema1,
			Platform:    &v1.Platform{OS: "unknown", Architecture: "unknown"},
			Annotations: map[string]string{testimage.ReferenceTypeAnnotation: testimage.AttestationManifest},
			Config:      v1.Platform{OS: "unknown", Architecture: "unknown"},
			LayerTypes:  []types.MediaType{testimage.InTotoMediaType},
		}
		if entry != "" {
			v.Annotations[testimage.ReferenceDigestAnnotation] = "<digest of entry " + entry + ">"
		}
		return v
	}
	docker := []types.MediaType{types.DockerLayer}
	oci := []types.MediaType{types.OCILayer}

	cases := []struct {
		name          string
		spec          testimage.Spec
		wantMediaType types.MediaType
		want          []entryView
	}{
		{
			name:          "Docker single image",
			spec:          testimage.Spec{Flavour: testimage.Docker, Entries: []testimage.Entry{win2019}},
			wantMediaType: types.DockerManifestSchema2,
			want:          []entryView{{MediaType: types.DockerManifestSchema2, Config: cfg(win2019), LayerTypes: docker}},
		},
		{
			name:          "OCI single image",
			spec:          testimage.Spec{Flavour: testimage.OCI, Entries: []testimage.Entry{win2022}},
			wantMediaType: types.OCIManifestSchema1,
			want:          []entryView{{MediaType: types.OCIManifestSchema1, Config: cfg(win2022), LayerTypes: oci}},
		},
		{
			name: "Docker list with a variant and a hidden os.version",
			spec: testimage.Spec{Flavour: testimage.Docker, Index: true, Entries: []testimage.Entry{
				linuxARM, {OS: "windows", Arch: "amd64", ConfigOSVersion: testimage.OSVersion2022},
			}},
			wantMediaType: types.DockerManifestList,
			want: []entryView{
				{MediaType: types.DockerManifestSchema2, Platform: p(linuxARM), Config: cfg(linuxARM), LayerTypes: docker},
				{MediaType: types.DockerManifestSchema2, Platform: &v1.Platform{OS: "windows", Architecture: "amd64"}, Config: cfg(win2022), LayerTypes: docker},
			},
		},
		{
			name: "OCI index with attestations after the images",
			spec: testimage.Spec{Flavour: testimage.OCI, Index: true, Entries: []testimage.Entry{
				{OS: "windows", Arch: "amd64", OSVersion: testimage.OSVersion2019, Attested: true}, win2022,
				{OS: "linux", Arch: "arm64", Variant: "v8", Attested: true},
			}},
			wantMediaType: types.OCIImageIndex,
			want: []entryView{
				{MediaType: types.OCIManifestSchema1, Platform: p(win2019), Config: cfg(win2019), LayerTypes: oci},
				{MediaType: types.OCIManifestSchema1, Platform: p(win2022), Config: cfg(win2022), LayerTypes: oci},
				{MediaType: types.OCIManifestSchema1, Platform: p(linuxARM), Config: cfg(linuxARM), LayerTypes: oci},
				attestation("0"),
				attestation("2"),
			},
		},
		{
			name: "OCI index with a lone attestation and entries missing parts",
			spec: testimage.Spec{Flavour: testimage.OCI, Index: true, Entries: []testimage.Entry{
				{OS: "windows", Arch: "amd64", OSVersion: testimage.OSVersion2019, NoConfigOSVersion: true},
				{Attestation: true},
				{OS: "windows", Arch: "amd64", OSVersion: testimage.OSVersion2022, NoPlatform: true},
			}},
			wantMediaType: types.OCIImageIndex,
			want: []entryView{
				{MediaType: types.OCIManifestSchema1, Platform: p(win2019), Config: v1.Platform{OS: "windows", Architecture: "amd64"}, LayerTypes: oci},
				attestation(""),
				{MediaType: types.OCIManifestSchema1, Config: cfg(win2022), LayerTypes: oci},
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
			pushed, err := testimage.Push(ref, a)
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

// TestNest: an index of indexes names each inner index, with no platform,
// in the flavour's index media type.
func TestNest(t *testing.T) {
	for _, tc := range []struct {
		flavour testimage.Flavour
		want    types.MediaType
	}{
		{testimage.Docker, types.DockerManifestList},
		{testimage.OCI, types.OCIImageIndex},
	} {
		t.Run(string(tc.flavour), func(t *testing.T) {
			inner, err := testimage.NewIndex(tc.flavour, testimage.Linux("amd64"))
			if err != nil {
				t.Fatal(err)
			}
			outer, err := testimage.Nest(tc.flavour, inner, inner)
			if err != nil {
				t.Fatal(err)
			}
			im, err := outer.IndexManifest()
			if err != nil {
				t.Fatal(err)
			}
			innerDigest, _ := inner.Digest()
			if im.MediaType != tc.want || len(im.Manifests) != 2 {
				t.Fatalf("outer index %s of %d entries, want %s of 2", im.MediaType, len(im.Manifests), tc.want)
			}
			for _, m := range im.Manifests {
				if m.Digest != innerDigest || m.Platform != nil || m.MediaType != tc.want {
					t.Errorf("entry %s %s platform %v, want the inner index %s with no platform", m.MediaType, m.Digest, m.Platform, innerDigest)
				}
			}
		})
	}
	if _, err := testimage.Nest("helm"); err == nil || !strings.Contains(err.Error(), "unknown flavour") {
		t.Errorf("Nest of an unknown flavour: %v, want an error naming it", err)
	}
}

func TestSpecBuildRejects(t *testing.T) {
	win := testimage.Entry{OS: "windows", Arch: "amd64"}
	cases := []struct {
		name    string
		spec    testimage.Spec
		wantErr string
	}{
		{name: "image without entries", spec: testimage.Spec{Flavour: testimage.OCI}, wantErr: "needs one entry"},
		{name: "image with two entries", spec: testimage.Spec{Flavour: testimage.OCI, Entries: []testimage.Entry{win, win}}, wantErr: "needs one entry"},
		{name: "empty index", spec: testimage.Spec{Flavour: testimage.Docker, Index: true}, wantErr: "needs entries"},
		{name: "unknown flavour", spec: testimage.Spec{Flavour: "helm", Entries: []testimage.Entry{win}}, wantErr: "unknown flavour"},
		{name: "unknown index flavour", spec: testimage.Spec{Flavour: "helm", Index: true, Entries: []testimage.Entry{win}}, wantErr: "unknown flavour"},
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
	spec := testimage.Spec{Flavour: testimage.OCI, Entries: []testimage.Entry{testimage.Windows(testimage.OSVersion2025)}}
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

func TestEntryString(t *testing.T) {
	cases := []struct {
		e    testimage.Entry
		want string
	}{
		{e: testimage.Windows(testimage.OSVersion2019), want: "windows/amd64 10.0.17763.6532"},
		{e: testimage.Entry{OS: "linux", Arch: "arm64", Variant: "v8"}, want: "linux/arm64/v8"},
	}
	for _, tc := range cases {
		if got := tc.e.String(); got != tc.want {
			t.Errorf("%#v.String() = %q, want %q", tc.e, got, tc.want)
		}
	}
}
