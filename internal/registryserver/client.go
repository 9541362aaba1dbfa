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
	"context"
	"encoding/base64"
	"encoding/json"
	"os"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/windows-aware/windows-aware/internal/testimage"
)

// Authenticator gives the registry's credentials (HTTP Basic).
func (s *Server) Authenticator() authn.Authenticator {
	return &authn.Basic{Username: s.Username, Password: s.Password}
}

// RemoteOptions are the go-containerregistry options that reach the
// registry: its credentials, a transport that trusts its CA, and ctx.
func (s *Server) RemoteOptions(ctx context.Context) []remote.Option {
	return []remote.Option{
		remote.WithContext(ctx),
		remote.WithAuth(s.Authenticator()),
		remote.WithTransport(s.Transport()),
	}
}

// Reference parses "<repository>:<tag>" or "<repository>@<digest>" as a
// reference to an image of this registry.
func (s *Server) Reference(repository string) (name.Reference, error) {
	return name.ParseReference(s.Host+"/"+repository, name.StrictValidation)
}

// Push uploads a (an image with its blobs, or an index with every manifest
// it names) as "<repository>:<tag>" and returns its reference by digest.
func (s *Server) Push(ctx context.Context, repositoryTag string, a testimage.Artifact) (name.Digest, error) {
	ref, err := s.Reference(repositoryTag)
	if err != nil {
		return name.Digest{}, err
	}
	return testimage.Push(ref, a, s.RemoteOptions(ctx)...)
}

// WriteDockerConfig writes a Docker config.json (mode 0600) whose auths
// hold the registry's credentials: the static credentials file a client
// reads.
func (s *Server) WriteDockerConfig(path string) error {
	auth := base64.StdEncoding.EncodeToString([]byte(s.Username + ":" + s.Password))
	cfg := map[string]any{"auths": map[string]any{s.Host: map[string]string{"auth": auth}}}
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o600)
}
