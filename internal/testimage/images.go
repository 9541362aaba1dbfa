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

package testimage

import (
	"errors"
	"fmt"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Flavour is the family of media types an image is pushed in.
type Flavour string

const (
	// Docker is the Docker image manifest v2 schema 2 and manifest list,
	// which docker push and most Windows images publish.
	Docker Flavour = "docker"
	// OCI is the OCI image manifest and image index, which BuildKit
	// publishes when it adds attestations.
	OCI Flavour = "oci"
)

// Windows builds with a revision, as the configs of images built on the
// Windows Server base images carry them.
const (
	OSVersion2019 = "10.0.17763.6532"
	OSVersion2022 = "10.0.20348.2849"
	OSVersion2025 = "10.0.26100.2314"
)

// Annotations of a BuildKit attestation entry in an index.
const (
	// ReferenceTypeAnnotation is "attestation-manifest" on an attestation
	// entry, whose platform is unknown/unknown.
	ReferenceTypeAnnotation = "vnd.docker.reference.type"
	// ReferenceDigestAnnotation is the digest of the image it attests.
	ReferenceDigestAnnotation = "vnd.docker.reference.digest"
	// AttestationManifest is the value of ReferenceTypeAnnotation.
	AttestationManifest = "attestation-manifest"
	// InTotoMediaType is the media type of an attestation's layers.
	InTotoMediaType types.MediaType = "application/vnd.in-toto+json"
)

// Entry is one image of an index, or the image of a single-platform Spec
// (which has no entry, so that only its config fields apply). Its fields
// are flat, so that a table of images reads as one line each.
type Entry struct {
	// OS, Arch and Variant are the image's platform, in its config and in
	// its entry.
	OS, Arch, Variant string
	// OSVersion is the entry's os.version and, unless ConfigOSVersion or
	// NoConfigOSVersion say otherwise, the config's: on Windows, the build
	// the image was built on ("10.0.20348.2849"). "" leaves it out.
	OSVersion string
	// ConfigOSVersion is the config's os.version when it is not the
	// entry's: with OSVersion "", the entry lists none while the config
	// has one, as buildx before 0.10 wrote lists.
	ConfigOSVersion string
	// NoConfigOSVersion leaves the config without os.version, whatever the
	// entry lists.
	NoConfigOSVersion bool
	// NoPlatform leaves the entry without a platform object.
	NoPlatform bool
	// Attestation makes the entry an attestation manifest of its own, in
	// its place among the entries, naming no image it attests: platform
	// unknown/unknown and ReferenceTypeAnnotation only. Its other fields
	// do not apply.
	Attestation bool
	// Attested adds a BuildKit attestation manifest for this image: an
	// entry with platform unknown/unknown and the annotations above, after
	// the images, where BuildKit puts them.
	Attested bool
}

// Windows is an amd64 Windows entry built on osVersion.
func Windows(osVersion string) Entry {
	return Entry{OS: "windows", Arch: "amd64", OSVersion: osVersion}
}

// Linux is a Linux entry of arch.
func Linux(arch string) Entry {
	return Entry{OS: "linux", Arch: arch}
}

// String is the entry's platform as the entry lists it: "windows/amd64
// 10.0.17763.6532", "linux/arm64/v8".
func (e Entry) String() string {
	s := e.OS + "/" + e.Arch
	if e.Variant != "" {
		s += "/" + e.Variant
	}
	if e.OSVersion != "" {
		s += " " + e.OSVersion
	}
	return s
}

// configOSVersion is the os.version the image's config carries.
func (e Entry) configOSVersion() string {
	switch {
	case e.NoConfigOSVersion:
		return ""
	case e.ConfigOSVersion != "":
		return e.ConfigOSVersion
	}
	return e.OSVersion
}

// Spec describes a synthetic image: a single-platform image (Index false,
// exactly one entry) or an index of its entries.
type Spec struct {
	Flavour Flavour
	Index   bool
	Entries []Entry
}

// Build makes the image or index Spec describes, with fresh random layers:
// every call gives new digests.
func (s Spec) Build() (Artifact, error) {
	if !s.Index {
		if len(s.Entries) != 1 {
			return nil, fmt.Errorf("a single-platform image needs one entry, not %d", len(s.Entries))
		}
		return NewImage(s.Flavour, s.Entries[0])
	}
	return NewIndex(s.Flavour, s.Entries...)
}

// Artifact is what Build makes and Push uploads: a v1.Image or a
// v1.ImageIndex.
type Artifact interface {
	RawManifest() ([]byte, error)
	MediaType() (types.MediaType, error)
	Digest() (v1.Hash, error)
}

// layerSize keeps the pushed images small: the tests look at manifests and
// configs, never at layer contents.
const layerSize = 256

// created is the images' creation time: fixed, so that only the random
// layer tells two builds of the same Spec apart.
var created = time.Date(2026, 1, 13, 0, 0, 0, 0, time.UTC)

// NewImage makes a single-platform image of one small random layer whose
// config carries e's OS, architecture, variant and os.version.
func NewImage(f Flavour, e Entry) (v1.Image, error) {
	manifestType, configType, layerType, err := f.mediaTypes()
	if err != nil {
		return nil, err
	}
	layer, err := random.Layer(layerSize, layerType)
	if err != nil {
		return nil, err
	}
	img, err := mutate.AppendLayers(mutate.ConfigMediaType(mutate.MediaType(empty.Image, manifestType), configType), layer)
	if err != nil {
		return nil, err
	}
	return withPlatform(img, v1.Platform{OS: e.OS, Architecture: e.Arch, Variant: e.Variant, OSVersion: e.configOSVersion()})
}

// withPlatform sets the config's os, architecture, variant and os.version.
func withPlatform(img v1.Image, p v1.Platform) (v1.Image, error) {
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture, cfg.Variant, cfg.OSVersion = p.OS, p.Architecture, p.Variant, p.OSVersion
	cfg.Created = v1.Time{Time: created}
	return mutate.ConfigFile(img, cfg)
}

// NewIndex makes a Docker manifest list or an OCI image index of one new
// image per entry, in order, followed by an attestation manifest per
// attested entry.
func NewIndex(f Flavour, entries ...Entry) (v1.ImageIndex, error) {
	indexType, err := f.indexMediaType()
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		return nil, errors.New("an index needs entries")
	}
	var images, attestations []mutate.IndexAddendum
	for _, e := range entries {
		if e.Attestation {
			att, err := newAttestation(nil)
			if err != nil {
				return nil, err
			}
			images = append(images, mutate.IndexAddendum{Add: att, Descriptor: v1.Descriptor{
				Platform:    &v1.Platform{OS: "unknown", Architecture: "unknown"},
				Annotations: map[string]string{ReferenceTypeAnnotation: AttestationManifest},
			}})
			continue
		}
		img, err := NewImage(f, e)
		if err != nil {
			return nil, err
		}
		desc := v1.Descriptor{}
		if !e.NoPlatform {
			desc.Platform = &v1.Platform{OS: e.OS, Architecture: e.Arch, Variant: e.Variant, OSVersion: e.OSVersion}
		}
		images = append(images, mutate.IndexAddendum{Add: img, Descriptor: desc})
		if !e.Attested {
			continue
		}
		subject, err := img.Digest()
		if err != nil {
			return nil, err
		}
		att, err := newAttestation(&subject)
		if err != nil {
			return nil, err
		}
		attestations = append(attestations, mutate.IndexAddendum{Add: att, Descriptor: v1.Descriptor{
			Platform: &v1.Platform{OS: "unknown", Architecture: "unknown"},
			Annotations: map[string]string{
				ReferenceTypeAnnotation:   AttestationManifest,
				ReferenceDigestAnnotation: subject.String(),
			},
		}})
	}
	idx := mutate.IndexMediaType(empty.Index, indexType)
	return mutate.AppendManifests(idx, append(images, attestations...)...), nil
}

// Nest makes an index of indexes, as some registries serve a
// multi-platform image: its entries name inner indexes and no platform.
func Nest(f Flavour, inner ...v1.ImageIndex) (v1.ImageIndex, error) {
	indexType, err := f.indexMediaType()
	if err != nil {
		return nil, err
	}
	var adds []mutate.IndexAddendum
	for _, in := range inner {
		adds = append(adds, mutate.IndexAddendum{Add: in})
	}
	return mutate.AppendManifests(mutate.IndexMediaType(empty.Index, indexType), adds...), nil
}

// newAttestation makes an attestation manifest as BuildKit writes one: an
// OCI image manifest whose config says unknown/unknown and whose layer is
// an in-toto statement about subject (nil: about no image in particular).
// BuildKit writes it in OCI media types whatever the index's flavour.
func newAttestation(subject *v1.Hash) (v1.Image, error) {
	subjects := "[]"
	if subject != nil {
		subjects = fmt.Sprintf(`[{"name":"image","digest":{"sha256":%q}}]`, subject.Hex)
	}
	statement := fmt.Appendf(nil, `{"_type":"https://in-toto.io/Statement/v0.1","predicateType":"https://spdx.dev/Document",`+
		`"subject":%s,"predicate":{"spdxVersion":"SPDX-2.3"}}`, subjects)
	layer := static.NewLayer(statement, InTotoMediaType)
	img, err := mutate.Append(mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON),
		mutate.Addendum{Layer: layer, Annotations: map[string]string{"in-toto.io/predicate-type": "https://spdx.dev/Document"}})
	if err != nil {
		return nil, err
	}
	return withPlatform(img, v1.Platform{OS: "unknown", Architecture: "unknown"})
}

func (f Flavour) mediaTypes() (manifest, config, layer types.MediaType, err error) {
	switch f {
	case Docker:
		return types.DockerManifestSchema2, types.DockerConfigJSON, types.DockerLayer, nil
	case OCI:
		return types.OCIManifestSchema1, types.OCIConfigJSON, types.OCILayer, nil
	}
	return "", "", "", fmt.Errorf("unknown flavour %q (want %q or %q)", f, Docker, OCI)
}

func (f Flavour) indexMediaType() (types.MediaType, error) {
	switch f {
	case Docker:
		return types.DockerManifestList, nil
	case OCI:
		return types.OCIImageIndex, nil
	}
	return "", fmt.Errorf("unknown flavour %q (want %q or %q)", f, Docker, OCI)
}

// Push uploads a (an image with its blobs, or an index with every manifest
// it names) to ref with opts; any registry will do. It returns ref's
// repository with a's digest.
func Push(ref name.Reference, a Artifact, opts ...remote.Option) (name.Digest, error) {
	digest, err := a.Digest()
	if err != nil {
		return name.Digest{}, err
	}
	if err := remote.Push(ref, a, opts...); err != nil {
		return name.Digest{}, fmt.Errorf("pushing %s: %w", ref, err)
	}
	return ref.Context().Digest(digest.String()), nil
}
