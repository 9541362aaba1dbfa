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
	"github.com/distribution/reference"
)

// imageRef is a pod's image reference, normalised the way the container
// runtime reads it.
type imageRef struct {
	// key names what the cache holds: "docker.io/library/nginx:latest" for
	// a tag, "docker.io/library/nginx@sha256:…" for a digest. A reference
	// with both a tag and a digest pulls by digest, so its key is the
	// digest's.
	key string
	// name is the repository with its registry, "docker.io/library/nginx":
	// what the kubelet's keyring matches credentials against.
	name string
	// host is the registry as the reference names it ("docker.io").
	host string
	// path is the repository inside the registry ("library/nginx").
	path string
	// tag is set when the reference pulls by tag.
	tag string
	// digest is set when the reference pulls by digest.
	digest string
}

// isTag reports whether the reference pulls by tag, so that the registry
// may move it.
func (r imageRef) isTag() bool { return r.digest == "" }

// parseRef normalises ref: docker.io and library/ are made explicit, a
// missing tag reads as latest, and a tag next to a digest is dropped.
func parseRef(ref string) (imageRef, error) {
	named, err := reference.ParseNormalizedNamed(ref)
	if err != nil {
		return imageRef{}, invalidf("reference does not parse: %v", err)
	}
	r := imageRef{name: named.Name(), host: reference.Domain(named), path: reference.Path(named)}
	if r.host == "" {
		// ParseNormalizedNamed leaves the domain empty for a first
		// component that has a dot but is no valid host ("a_b.c/d"):
		// no registry to ask.
		return imageRef{}, invalidf("reference names no registry host")
	}
	if digested, ok := named.(reference.Digested); ok {
		r.digest = digested.Digest().String()
		r.key = r.name + "@" + r.digest
		return r, nil
	}
	tagged := reference.TagNameOnly(named).(reference.Tagged)
	r.tag = tagged.Tag()
	r.key = r.name + ":" + r.tag
	return r, nil
}

// digestRef is the reference that pins r's repository to digest.
func (r imageRef) digestRef(digest string) imageRef {
	return imageRef{key: r.name + "@" + digest, name: r.name, host: r.host, path: r.path, digest: digest}
}
