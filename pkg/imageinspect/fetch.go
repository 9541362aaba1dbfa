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
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/windows-aware/windows-aware/pkg/safetext"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

const (
	// maxIndexDepth bounds nested indexes (an index whose entry is an
	// index); real images nest at most once.
	maxIndexDepth = 2
	// maxChildFetches bounds the child manifests and configs one
	// resolution reads for entries that lack a platform or os.version.
	maxChildFetches = 16
	// dockerReferenceType is the annotation BuildKit puts on attestation
	// manifests in an index.
	dockerReferenceType = "vnd.docker.reference.type"
	userAgent           = "windows-aware-scheduler"
)

// noRetry turns off the registry client's own retries: the resolver
// retries with its own backoff, and honours Retry-After, which the
// client's retries do not.
var noRetry = []remote.Option{
	remote.WithRetryBackoff(remote.Backoff{Steps: 1}),
	remote.WithRetryPredicate(func(error) bool { return false }),
	remote.WithRetryStatusCodes(),
}

// fetcher reads one image's platforms from one endpoint with one
// credential.
type fetcher struct {
	repo    name.Repository
	auth    authn.Authenticator
	puller  *remote.Puller
	timeout time.Duration
	// children counts child manifests and configs read so far.
	children int
	// entries counts the index entries read so far, nested indexes
	// included, against MaxIndexEntries.
	entries entryBudget
}

func newFetcher(ep endpoint, path string, tr http.RoundTripper, auth authn.Authenticator, timeout time.Duration) (*fetcher, error) {
	var opts []name.Option
	if ep.insecure {
		opts = append(opts, name.Insecure)
	}
	repo, err := name.NewRepository(ep.host+"/"+path, opts...)
	if err != nil {
		return nil, invalidf("repository %q: %v", ep.host+"/"+path, err)
	}
	if g, ok := tr.(*guardTransport); ok {
		// The requests carry the registry as the client spells it
		// (docker.io is asked as index.docker.io).
		tr = g.forEndpoint(repo.RegistryStr())
	}
	ropts := append([]remote.Option{remote.WithTransport(tr), remote.WithAuth(auth), remote.WithUserAgent(userAgent)}, noRetry...)
	p, err := remote.NewPuller(ropts...)
	if err != nil {
		return nil, err
	}
	return &fetcher{repo: repo, auth: auth, puller: p, timeout: timeout}, nil
}

// headDigest asks for the digest a tag points at. A HEAD does not count
// against Docker Hub's pull budget; a GET does.
func (f *fetcher) headDigest(ctx context.Context, tag string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	d, err := f.puller.Head(ctx, f.repo.Tag(tag))
	if err != nil {
		return "", err
	}
	// The digest's facts may be known: this may be the run's last request.
	// (Failed here, the run reads the tag by GET, and fails there too.)
	if err := f.secretsChanged(); err != nil {
		return "", err
	}
	return d.Digest.String(), nil
}

// secretsChanged fails the run when its credential came from pull
// secrets that have changed since it read them: checked after the run's
// last request, so that facts obtained with a rotated or revoked secret
// are not stored after the change was noticed.
func (f *fetcher) secretsChanged() error { return secretsChanged(f.auth) }

// getManifest reads a manifest by tag or digest; by digest, the client
// checks the content against it.
func (f *fetcher) getManifest(ctx context.Context, ref name.Reference) (manifest []byte, mediaType types.MediaType, digest string, err error) {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	desc, err := f.puller.Get(ctx, ref)
	if err != nil {
		return nil, "", "", err
	}
	return desc.Manifest, desc.MediaType, desc.Digest.String(), nil
}

// platforms reads the platforms of the manifest or index at digest.
func (f *fetcher) platforms(ctx context.Context, digest string) ([]windows.Platform, error) {
	manifest, mt, _, err := f.getManifest(ctx, f.repo.Digest(digest))
	if err != nil {
		return nil, err
	}
	ps, err := f.distinctPlatformsOf(ctx, manifest, mt)
	if err != nil {
		return nil, err
	}
	if err := f.secretsChanged(); err != nil {
		return nil, err
	}
	return ps, nil
}

// distinctPlatformsOf is platformsOf with each (os, architecture, build)
// once: what the resolver stores, so that no decision over the platforms
// sees an entry twice.
func (f *fetcher) distinctPlatformsOf(ctx context.Context, manifest []byte, mt types.MediaType) ([]windows.Platform, error) {
	ps, err := f.platformsOf(ctx, manifest, mt, 0)
	if err != nil {
		return nil, err
	}
	return windows.DistinctPlatforms(ps), nil
}

// platformsOfTag reads a tag's manifest when HEAD could not give its
// digest, and returns the digest the GET saw too.
func (f *fetcher) platformsOfTag(ctx context.Context, tag string) ([]windows.Platform, string, error) {
	manifest, mt, digest, err := f.getManifest(ctx, f.repo.Tag(tag))
	if err != nil {
		return nil, "", err
	}
	ps, err := f.distinctPlatformsOf(ctx, manifest, mt)
	if err != nil {
		return nil, "", err
	}
	if err := f.secretsChanged(); err != nil {
		return nil, "", err
	}
	return ps, digest, nil
}

// platformsOf parses a manifest or index. The index is read here, entry by
// entry, and never through the client's "pick a platform" helpers: they
// compare os.version as exact strings.
func (f *fetcher) platformsOf(ctx context.Context, manifest []byte, mt types.MediaType, depth int) ([]windows.Platform, error) {
	switch kindOf(manifest, mt) {
	case kindIndex:
		return f.indexPlatforms(ctx, manifest, depth)
	case kindImage:
		m, err := v1.ParseManifest(bytes.NewReader(manifest))
		if err != nil {
			return nil, invalidf("image manifest: %v", err)
		}
		p, err := f.configPlatform(ctx, m.Config.Digest)
		if err != nil {
			return nil, err
		}
		if p.OS == "" {
			return nil, invalidf("image config names no os")
		}
		return []windows.Platform{p}, nil
	case kindSchema1:
		return nil, invalidf("schema 1 manifest (%s) is not supported", mt)
	}
	return nil, invalidf("unknown manifest media type %q", mt)
}

type manifestKind uint8

const (
	kindUnknown manifestKind = iota
	kindIndex
	kindImage
	kindSchema1
)

// kindOf reads the media type; registries that answer with a generic
// Content-Type are read by the manifest's own mediaType and shape.
func kindOf(manifest []byte, mt types.MediaType) manifestKind {
	switch mt {
	case types.OCIImageIndex, types.DockerManifestList:
		return kindIndex
	case types.OCIManifestSchema1, types.DockerManifestSchema2:
		return kindImage
	case types.DockerManifestSchema1, types.DockerManifestSchema1Signed:
		return kindSchema1
	}
	if mt != "" && mt != "application/json" && !strings.HasPrefix(string(mt), "text/plain") {
		return kindUnknown
	}
	var probe struct {
		SchemaVersion int             `json:"schemaVersion"`
		MediaType     types.MediaType `json:"mediaType"`
		Manifests     json.RawMessage `json:"manifests"`
		Config        json.RawMessage `json:"config"`
	}
	if json.Unmarshal(manifest, &probe) != nil {
		return kindUnknown
	}
	switch {
	case probe.SchemaVersion == 1:
		return kindSchema1
	case probe.MediaType != "":
		if k := kindOf(nil, probe.MediaType); k != kindUnknown {
			return k
		}
		return kindUnknown
	case len(probe.Manifests) > 0:
		return kindIndex
	case len(probe.Config) > 0:
		return kindImage
	}
	return kindUnknown
}

func (f *fetcher) indexPlatforms(ctx context.Context, manifest []byte, depth int) ([]windows.Platform, error) {
	entries, err := decodeIndexEntries(manifest, &f.entries)
	if err != nil {
		return nil, err
	}
	var out []windows.Platform
	for _, m := range entries {
		if isAttestation(m) {
			continue
		}
		if m.MediaType == types.OCIImageIndex || m.MediaType == types.DockerManifestList {
			if depth >= maxIndexDepth {
				return nil, invalidf("image index nested deeper than %d", maxIndexDepth)
			}
			child, cmt, err := f.child(ctx, m.Digest)
			if err != nil {
				return nil, err
			}
			ps, err := f.platformsOf(ctx, child, cmt, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, ps...)
			continue
		}
		var p windows.Platform
		if m.Platform != nil {
			p = windows.Platform{OS: platformWord(m.Platform.OS), Arch: platformWord(m.Platform.Architecture)}
		}
		switch {
		case p.OS == "":
			// No platform on the entry: the child's config says.
			p, err = f.childPlatform(ctx, m.Digest)
			if err != nil {
				return nil, err
			}
		case p.OS == windows.OSWindows && m.Platform.OSVersion == "":
			// BuildKit before 2023 left os.version off the entry; the
			// config has it when the base image set it.
			cp, err := f.childPlatform(ctx, m.Digest)
			if err != nil {
				return nil, err
			}
			p.Version = cp.Version
		case p.OS == windows.OSWindows:
			v, ok := windows.ParseOSVersion(m.Platform.OSVersion)
			if !ok {
				// containerd matches no host to an os.version it cannot
				// read; neither do we.
				continue
			}
			p.Version = v
		}
		if p.OS != "" {
			out = append(out, p)
		}
	}
	return out, nil
}

// isAttestation reports the provenance/SBOM entries BuildKit adds to an
// index: no host runs them.
func isAttestation(m v1.Descriptor) bool {
	if _, ok := m.Annotations[dockerReferenceType]; ok {
		return true
	}
	return m.Platform != nil && m.Platform.OS == "unknown" && m.Platform.Architecture == "unknown"
}

func (f *fetcher) child(ctx context.Context, digest v1.Hash) ([]byte, types.MediaType, error) {
	if f.children >= maxChildFetches {
		return nil, "", invalidf("index needs more than %d child reads", maxChildFetches)
	}
	f.children++
	manifest, mt, _, err := f.getManifest(ctx, f.repo.Digest(digest.String()))
	return manifest, mt, err
}

// childPlatform reads the platform of an index entry from its manifest's
// config.
func (f *fetcher) childPlatform(ctx context.Context, digest v1.Hash) (windows.Platform, error) {
	child, mt, err := f.child(ctx, digest)
	if err != nil {
		return windows.Platform{}, err
	}
	if kindOf(child, mt) != kindImage {
		return windows.Platform{}, invalidf("index entry %s is not an image manifest (%s)", digest, mt)
	}
	m, err := v1.ParseManifest(bytes.NewReader(child))
	if err != nil {
		return windows.Platform{}, invalidf("image manifest: %v", err)
	}
	return f.configPlatform(ctx, m.Config.Digest)
}

// imageConfig is the part of an image config that names its platform.
type imageConfig struct {
	OS           string `json:"os"`
	Architecture string `json:"architecture"`
	OSVersion    string `json:"os.version"`
}

func (f *fetcher) configPlatform(ctx context.Context, digest v1.Hash) (windows.Platform, error) {
	if f.children >= maxChildFetches {
		return windows.Platform{}, invalidf("image needs more than %d child reads", maxChildFetches)
	}
	f.children++
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	layer, err := f.puller.Layer(ctx, f.repo.Digest(digest.String()))
	if err != nil {
		return windows.Platform{}, err
	}
	rc, err := layer.Compressed()
	if err != nil {
		return windows.Platform{}, err
	}
	defer rc.Close()
	raw, err := io.ReadAll(io.LimitReader(rc, maxConfigBytes+1))
	if err != nil {
		return windows.Platform{}, err
	}
	if len(raw) > maxConfigBytes {
		return windows.Platform{}, &tooLargeError{what: "config", limit: maxConfigBytes}
	}
	var c imageConfig
	if err := json.Unmarshal(raw, &c); err != nil {
		return windows.Platform{}, invalidf("image config: %v", err)
	}
	p := windows.Platform{OS: platformWord(c.OS), Arch: platformWord(c.Architecture)}
	if p.OS == windows.OSWindows && c.OSVersion != "" {
		if v, ok := windows.ParseOSVersion(c.OSVersion); ok {
			p.Version = v
		}
	}
	return p, nil
}

// maxPlatformWord bounds an os or architecture kept from a registry: the
// real ones are a word (windows, linux, amd64, arm64).
const maxPlatformWord = 64

// platformWord is an os or architecture as a registry wrote it, kept for
// the decision and for the Events, status and reports that quote it: in
// lower case, its control characters escaped (safetext.Text), at most
// maxPlatformWord bytes.
func platformWord(s string) string {
	s = safetext.Text(strings.ToLower(s))
	if len(s) > maxPlatformWord {
		s = strings.ToValidUTF8(s[:maxPlatformWord], "")
	}
	return s
}
