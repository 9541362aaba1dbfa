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
	"errors"
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

// key identifies the credential set, and so its scope in the cache: the
// namespace and the sorted names. "" for none. It does not allocate then.
func (p PullSecrets) key() string {
	if len(p.Names) == 0 {
		return ""
	}
	names := slices.Clone(p.Names)
	slices.Sort(names)
	return p.Namespace + "/" + strings.Join(slices.Compact(names), ",")
}

// anonymousCredID names the anonymous credential.
const anonymousCredID = "anonymous"

// credential is one way to authenticate; id tells credentials apart
// without holding or showing the secret. shared is true for anonymous and
// for the static docker config's credentials, whose facts every pod may
// see; false for a pod's pull secret, whose facts only its scope may see.
type credential struct {
	auth   authn.Authenticator
	id     string
	shared bool
}

var anonymous = credential{auth: authn.Anonymous, id: anonymousCredID, shared: true}

// credentials builds, per image and credential scope, the list of
// credentials the kubelet would try: every matching entry of the scope's
// pull secrets, then of the static docker config, each in turn; anonymous
// when none matches. It never mixes the pull secrets of two scopes.
type credentials struct {
	dockerConfigFile string
	podPullSecrets   bool
	secrets          *secretReader

	mu           sync.Mutex
	static       credentialprovider.DockerKeyring
	staticMod    time.Time
	staticSize   int64
	staticLoaded bool
}

func newCredentials(dockerConfigFile string, podPullSecrets bool, getSecret SecretGetter, now func() time.Time) (*credentials, error) {
	if podPullSecrets && getSecret == nil {
		return nil, fmt.Errorf("pod pull secrets are enabled but no secret getter is given")
	}
	c := &credentials{
		dockerConfigFile: dockerConfigFile,
		podPullSecrets:   podPullSecrets,
	}
	if podPullSecrets {
		c.secrets = newSecretReader(getSecret, now)
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
// (normalised, "docker.io/library/nginx") on behalf of one credential
// scope, pull (empty for the shared scope), without duplicates: the
// scope's matching pull secrets, then the static config's, or anonymous
// when none matches.
func (c *credentials) forImage(ctx context.Context, name string, pull PullSecrets) []credential {
	logger := klog.FromContext(ctx)
	static, err := c.staticKeyring()
	if err != nil {
		logger.Error(err, "Cannot read registry credentials; trying without them")
		static = &credentialprovider.BasicDockerKeyring{}
	}
	var out []credential
	seen := map[string]bool{}
	add := func(cr credential) {
		if !seen[cr.id] {
			seen[cr.id] = true
			out = append(out, cr)
		}
	}
	if c.podPullSecrets && len(pull.Names) > 0 {
		kr, read := c.podKeyring(ctx, pull)
		own, _ := kr.Lookup(name)
		for _, m := range own {
			add(credentialOf(m.AuthConfig, read))
		}
	}
	shared, _ := static.Lookup(name)
	for _, m := range shared {
		add(credentialOf(m.AuthConfig, nil))
	}
	if len(out) == 0 {
		add(anonymous)
	}
	return out
}

// podKeyring is the keyring of a pod's pull secrets alone, read by name in
// its namespace (the static config is tried after it, as the kubelet
// does), and the versions of the secrets it read.
func (c *credentials) podKeyring(ctx context.Context, p PullSecrets) (credentialprovider.DockerKeyring, *secretsRead) {
	logger := klog.FromContext(ctx)
	var found []v1.Secret
	used := &secretsRead{reader: c.secrets, namespace: p.Namespace}
	for _, n := range slices.Compact(slices.Clone(p.Names)) {
		s, version, err := c.secrets.readVersion(ctx, p.Namespace, n)
		used.add(n, version)
		if err != nil || s == nil {
			// The kubelet too pulls with the secrets it can read.
			logger.V(2).Info("Cannot read image pull secret; trying the others", "namespace", p.Namespace, "secret", n, "err", err)
			continue
		}
		found = append(found, *s)
	}
	kr, err := secrets.MakeDockerKeyring(found, &credentialprovider.BasicDockerKeyring{})
	if err != nil {
		logger.V(2).Info("Image pull secrets do not parse; using the static credentials", "namespace", p.Namespace, "secrets", p.Names)
		return &credentialprovider.BasicDockerKeyring{}, used
	}
	return kr, used
}

// onSecretChange sets the function told of a pull secret that, read
// again, has changed (new credentials, deleted, no longer readable): the
// resolver drops what it obtained with the secret.
func (c *credentials) onSecretChange(fn func(namespace, name string)) {
	if c.secrets == nil {
		return
	}
	c.secrets.mu.Lock()
	c.secrets.changed = fn
	c.secrets.mu.Unlock()
}

// secretsRead are the versions of the pull secrets one run read, so that
// it can tell, once it has its facts, whether a secret changed meanwhile:
// facts stored after the change was noticed (which dropped the others)
// would outlive it.
type secretsRead struct {
	reader    *secretReader
	namespace string
	names     []string
	versions  []string
}

func (r *secretsRead) add(name, version string) {
	if version != "" {
		r.names = append(r.names, name)
		r.versions = append(r.versions, version)
	}
}

// current reports whether every secret read is still at the version read.
func (r *secretsRead) current() bool {
	for i, n := range r.names {
		if !r.reader.current(r.namespace, n, r.versions[i]) {
			return false
		}
	}
	return true
}

// errSecretChanged fails a run whose pull secrets changed while it ran,
// as unavailable: it is retried, with the secrets as they are now.
var errSecretChanged = errors.New("image pull secret changed during the resolution")

// inScope reports whether the credential scope key (PullSecrets.key)
// names the Secret namespace/name. Names of Secrets hold neither "/" nor
// ",".
func inScope(scope, namespace, name string) bool {
	ns, names, ok := strings.Cut(scope, "/")
	if !ok || ns != namespace {
		return false
	}
	for n := range strings.SplitSeq(names, ",") {
		if n == name {
			return true
		}
	}
	return false
}

// credentialOf is a credential of the static config (read nil: shared),
// or of a pod's pull secrets, read at the versions read holds.
func credentialOf(a credentialprovider.AuthConfig, read *secretsRead) credential {
	cfg := authn.AuthConfig{
		Username:      a.Username,
		Password:      a.Password,
		Auth:          a.Auth,
		IdentityToken: a.IdentityToken,
		RegistryToken: a.RegistryToken,
	}
	raw, _ := json.Marshal(cfg)
	sum := sha256.Sum256(raw)
	cr := credential{auth: authn.FromConfig(cfg), id: hex.EncodeToString(sum[:8]), shared: read == nil}
	if read != nil {
		cr.auth = &pullSecretAuth{Authenticator: cr.auth, read: read}
	}
	return cr
}

// pullSecretAuth is the authenticator of a credential from a pod's pull
// secrets; it carries the versions of the secrets it came from, so that a
// run that used it can tell whether they changed before it ended.
type pullSecretAuth struct {
	authn.Authenticator
	read *secretsRead
}

// secretsChanged returns errSecretChanged when auth came from pull
// secrets that have changed since they were read.
func secretsChanged(auth authn.Authenticator) error {
	if a, ok := auth.(*pullSecretAuth); ok && !a.read.current() {
		return errSecretChanged
	}
	return nil
}
