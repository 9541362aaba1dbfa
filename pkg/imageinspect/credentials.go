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
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/credentialprovider"
	"k8s.io/kubernetes/pkg/credentialprovider/secrets"
)

// SecretGetter reads one Secret by namespace and name, e.g.
// ClientSet().CoreV1().Secrets(namespace).Get. The resolver asks only for
// the names a pod lists, in the pod's namespace, from its workers: never
// from the scheduling path, and never through an informer that would keep
// every Secret of the cluster in memory.
type SecretGetter func(ctx context.Context, namespace, name string) (*v1.Secret, error)

// PullSecrets names the credentials a pod lets its images be pulled with:
// the pod's namespace and its spec.imagePullSecrets names. The
// ServiceAccount admission plugin has already copied the account's pull
// secrets there.
type PullSecrets struct {
	Namespace string
	Names     []string
}

// key identifies the credential set: a failure under one set does not
// stop another set from trying.
func (p PullSecrets) key() string {
	if len(p.Names) == 0 {
		return ""
	}
	names := slices.Clone(p.Names)
	slices.Sort(names)
	return p.Namespace + "/" + strings.Join(slices.Compact(names), ",")
}

// keyringTTL bounds how long a pod's parsed pull secrets are reused before
// they are read again, so that a rotated secret is seen within a minute.
const (
	keyringTTL      = time.Minute
	maxKeyrings     = 1024
	anonymousCredID = "anonymous"
)

// credential is one way to authenticate; id tells credentials apart
// without holding or showing the secret.
type credential struct {
	auth authn.Authenticator
	id   string
}

var anonymous = credential{auth: authn.Anonymous, id: anonymousCredID}

// credentials builds, per image, the list of credentials the kubelet would
// try: every matching entry of the pod's pull secrets, then of the static
// docker config, each in turn; anonymous when none matches.
type credentials struct {
	dockerConfigFile string
	podPullSecrets   bool
	getSecret        SecretGetter
	now              func() time.Time

	mu           sync.Mutex
	static       credentialprovider.DockerKeyring
	staticMod    time.Time
	staticSize   int64
	podKeyrings  map[string]cachedKeyring
	staticLoaded bool
}

type cachedKeyring struct {
	keyring credentialprovider.DockerKeyring
	expires time.Time
}

func newCredentials(dockerConfigFile string, podPullSecrets bool, getSecret SecretGetter, now func() time.Time) (*credentials, error) {
	if podPullSecrets && getSecret == nil {
		return nil, fmt.Errorf("pod pull secrets are enabled but no secret getter is given")
	}
	c := &credentials{
		dockerConfigFile: dockerConfigFile,
		podPullSecrets:   podPullSecrets,
		getSecret:        getSecret,
		now:              now,
		podKeyrings:      map[string]cachedKeyring{},
	}
	if dockerConfigFile != "" {
		if _, err := c.staticKeyring(); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// staticKeyring is the docker config file's keyring, read again when the
// file changes (a mounted Secret is updated in place).
func (c *credentials) staticKeyring() (credentialprovider.DockerKeyring, error) {
	if c.dockerConfigFile == "" {
		return &credentialprovider.BasicDockerKeyring{}, nil
	}
	fi, err := os.Stat(c.dockerConfigFile)
	if err != nil {
		return nil, fmt.Errorf("docker config file: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.staticLoaded && fi.ModTime().Equal(c.staticMod) && fi.Size() == c.staticSize {
		return c.static, nil
	}
	cfg, err := credentialprovider.ReadSpecificDockerConfigJSONFile(c.dockerConfigFile)
	if err != nil {
		// Never echo the file's content: the error says only where.
		return nil, fmt.Errorf("docker config file %s does not parse as config.json", c.dockerConfigFile)
	}
	kr := &credentialprovider.BasicDockerKeyring{}
	kr.Add(nil, cfg)
	c.static, c.staticMod, c.staticSize, c.staticLoaded = kr, fi.ModTime(), fi.Size(), true
	return kr, nil
}

// forImage lists the credentials to try for the image repository name
// (normalised, "docker.io/library/nginx"), over the pull-secret sets of
// the pods that want it, without duplicates.
func (c *credentials) forImage(ctx context.Context, name string, pulls []PullSecrets) []credential {
	logger := klog.FromContext(ctx)
	static, err := c.staticKeyring()
	if err != nil {
		logger.Error(err, "Cannot read registry credentials; trying without them")
		static = &credentialprovider.BasicDockerKeyring{}
	}
	if len(pulls) == 0 || !c.podPullSecrets {
		pulls = []PullSecrets{{}}
	}
	var out []credential
	seen := map[string]bool{}
	add := func(cr credential) {
		if !seen[cr.id] {
			seen[cr.id] = true
			out = append(out, cr)
		}
	}
	for _, p := range pulls {
		kr := static
		if c.podPullSecrets && len(p.Names) > 0 {
			kr = c.podKeyring(ctx, p, static)
		}
		matches, _ := kr.Lookup(name)
		if len(matches) == 0 {
			add(anonymous)
			continue
		}
		for _, m := range matches {
			add(credentialOf(m.AuthConfig))
		}
	}
	return out
}

// podKeyring is the kubelet's keyring for a pod: its pull secrets, read
// by name, unioned with the static config.
func (c *credentials) podKeyring(ctx context.Context, p PullSecrets, static credentialprovider.DockerKeyring) credentialprovider.DockerKeyring {
	key := p.key()
	now := c.now()
	c.mu.Lock()
	if ck, ok := c.podKeyrings[key]; ok && now.Before(ck.expires) {
		c.mu.Unlock()
		return ck.keyring
	}
	c.mu.Unlock()

	logger := klog.FromContext(ctx)
	var found []v1.Secret
	for _, n := range p.Names {
		s, err := c.getSecret(ctx, p.Namespace, n)
		if err != nil || s == nil {
			// The kubelet too pulls with the secrets it can read.
			logger.V(2).Info("Cannot read image pull secret; trying the others", "namespace", p.Namespace, "secret", n, "err", err)
			continue
		}
		found = append(found, *s)
	}
	kr, err := secrets.MakeDockerKeyring(found, static)
	if err != nil {
		logger.V(2).Info("Image pull secrets do not parse; using the static credentials", "namespace", p.Namespace, "secrets", p.Names)
		kr = static
	}
	c.mu.Lock()
	if len(c.podKeyrings) >= maxKeyrings {
		for k, ck := range c.podKeyrings {
			if !now.Before(ck.expires) || len(c.podKeyrings) >= maxKeyrings {
				delete(c.podKeyrings, k)
			}
			if len(c.podKeyrings) < maxKeyrings/2 {
				break
			}
		}
	}
	c.podKeyrings[key] = cachedKeyring{keyring: kr, expires: now.Add(keyringTTL)}
	c.mu.Unlock()
	return kr
}

func credentialOf(a credentialprovider.AuthConfig) credential {
	cfg := authn.AuthConfig{
		Username:      a.Username,
		Password:      a.Password,
		Auth:          a.Auth,
		IdentityToken: a.IdentityToken,
		RegistryToken: a.RegistryToken,
	}
	raw, _ := json.Marshal(cfg)
	sum := sha256.Sum256(raw)
	return credential{auth: authn.FromConfig(cfg), id: hex.EncodeToString(sum[:8])}
}
