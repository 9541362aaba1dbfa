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
	"encoding/binary"
	"encoding/hex"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Bounds of the pull-secret reads. A Secret is read at most once per
// secretTTL (a rotated secret is seen within it), concurrent reads of one
// Secret share one GET, at most maxSecretReads GETs are under way at
// once, and at most maxCachedSecrets Secrets (of at most
// maxCachedSecretBytes of registry credentials together) are kept. The
// version of each Secret last read is remembered for more of them,
// maxSecretVersions, at about 100 bytes each.
const (
	secretTTL            = time.Minute
	maxCachedSecrets     = 1024
	maxCachedSecretBytes = 16 << 20
	maxSecretReads       = 4
	maxSecretVersions    = 4 * maxCachedSecrets
)

// secretGone is the version of a Secret that the API server says is
// absent, or not readable by the scheduler.
const secretGone = "gone"

// secretKey names one Secret.
type secretKey struct{ namespace, name string }

// cachedSecret is what is kept of one Secret read: only its type and its
// registry credentials, or that it could not be read (absent, or not
// readable by the scheduler: asking again within the TTL would not help).
type cachedSecret struct {
	secret *v1.Secret
	// version identifies what the read found (secretVersion).
	version string
	err     error
	size    int
	expires time.Time
}

// secretReader reads pull secrets sparingly: it deduplicates and caches
// GETs per Secret, bounds them in number, in flight and in memory, so that
// pods naming the same secret, or many secrets, cost the API server a
// bounded number of reads.
type secretReader struct {
	get SecretGetter
	now func() time.Time
	// reads bounds the GETs under way.
	reads chan struct{}

	flights singleflight.Group
	mu      sync.Mutex
	cached  map[secretKey]cachedSecret
	bytes   int
	// versions are the versions last read, kept past the cached Secrets'
	// own eviction, to tell a changed Secret from one read again.
	versions map[secretKey]string
	// changed, when set, is told of a Secret whose read found another
	// version than the one read before, or one the reader no longer
	// remembers: what was obtained with it is not to be trusted.
	changed func(namespace, name string)
}

func newSecretReader(get SecretGetter, now func() time.Time) *secretReader {
	return &secretReader{get: get, now: now, reads: make(chan struct{}, maxSecretReads),
		cached: map[secretKey]cachedSecret{}, versions: map[secretKey]string{}}
}

// read returns the Secret's type and registry credentials, from the cache
// while fresh, else from one GET shared by every concurrent caller.
func (s *secretReader) read(ctx context.Context, namespace, name string) (*v1.Secret, error) {
	secret, _, err := s.readVersion(ctx, namespace, name)
	return secret, err
}

// readVersion is read, with the version of what it found: a hash of the
// registry credentials, or secretGone when the Secret is absent or not
// readable ("" with any other error: the API server did not say).
func (s *secretReader) readVersion(ctx context.Context, namespace, name string) (*v1.Secret, string, error) {
	k := secretKey{namespace, name}
	if c, ok := s.fresh(k); ok {
		return c.secret, c.version, c.err
	}
	v, err, _ := s.flights.Do(namespace+"/"+name, func() (any, error) {
		// A flight that ended since the look above has stored it.
		if c, ok := s.fresh(k); ok {
			return c, nil
		}
		select {
		case s.reads <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		secret, err := s.get(ctx, namespace, name)
		<-s.reads
		var c cachedSecret
		switch {
		case apierrors.IsNotFound(err) || apierrors.IsForbidden(err):
			c = cachedSecret{err: err, version: secretGone}
		case err != nil:
			return nil, err
		default:
			kept := credentialsOnly(secret)
			c = cachedSecret{secret: kept, version: secretVersion(kept)}
		}
		s.store(k, c)
		s.noteVersion(k, c.version)
		return c, nil
	})
	if err != nil {
		return nil, "", err
	}
	c := v.(cachedSecret)
	return c.secret, c.version, c.err
}

// current reports whether version is the version of the Secret last
// read. A Secret with no version recorded (gone from the start, or
// forgotten) counts as current: its next read tells a change.
func (s *secretReader) current(namespace, name, version string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, known := s.versions[secretKey{namespace, name}]
	return !known || v == version
}

// noteVersion records the version a read found and tells changed when it
// is not the one recorded before. A Secret read for the first time is
// told too: the reader may have forgotten it (past maxSecretVersions), and
// cannot tell what anything cached was obtained with; where nothing was,
// there is nothing to drop. A Secret never read before and gone is not
// recorded: nothing was obtained with it, and names of absent Secrets,
// which cost a tenant nothing, do not push out the others' versions.
func (s *secretReader) noteVersion(k secretKey, version string) {
	s.mu.Lock()
	old, known := s.versions[k]
	if !known && version == secretGone {
		s.mu.Unlock()
		return
	}
	if !known && len(s.versions) >= maxSecretVersions {
		for victim := range s.versions {
			delete(s.versions, victim)
			break
		}
	}
	s.versions[k] = version
	changed := s.changed
	s.mu.Unlock()
	if changed != nil && old != version {
		changed(k.namespace, k.name)
	}
}

// secretVersion identifies a Secret's registry credentials: a hash of
// its type and docker config data, the fields a keyring reads. A change
// of anything else (labels, annotations) leaves it alone.
func secretVersion(kept *v1.Secret) string {
	h := sha256.New()
	h.Write([]byte(kept.Type))
	for _, k := range []string{v1.DockerConfigJsonKey, v1.DockerConfigKey} {
		d, ok := kept.Data[k]
		if !ok {
			continue
		}
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(d)))
		h.Write([]byte{0})
		h.Write([]byte(k))
		h.Write(n[:])
		h.Write(d)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// fresh returns the Secret's cached read while it is fresh.
func (s *secretReader) fresh(k secretKey) (cachedSecret, bool) {
	s.mu.Lock()
	c, ok := s.cached[k]
	s.mu.Unlock()
	return c, ok && s.now().Before(c.expires)
}

// credentialsOnly keeps of a Secret what a docker keyring reads.
func credentialsOnly(secret *v1.Secret) *v1.Secret {
	kept := &v1.Secret{Type: secret.Type, Data: map[string][]byte{}}
	kept.Name, kept.Namespace = secret.Name, secret.Namespace
	for _, k := range []string{v1.DockerConfigJsonKey, v1.DockerConfigKey} {
		if d, ok := secret.Data[k]; ok {
			kept.Data[k] = d
		}
	}
	return kept
}

// store keeps c within the bounds: expired entries go first, then any.
func (s *secretReader) store(k secretKey, c cachedSecret) {
	if c.secret != nil {
		for _, d := range c.secret.Data {
			c.size += len(d)
		}
	}
	if c.size > maxCachedSecretBytes/4 {
		return // read again next time rather than crowd out the others
	}
	now := s.now()
	c.expires = now.Add(secretTTL)
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.cached[k]; ok {
		s.bytes -= old.size
		delete(s.cached, k)
	}
	if len(s.cached) >= maxCachedSecrets || s.bytes+c.size > maxCachedSecretBytes {
		for ok, v := range s.cached {
			if !now.Before(v.expires) {
				s.drop(ok)
			}
		}
		for ok := range s.cached {
			if len(s.cached) < maxCachedSecrets && s.bytes+c.size <= maxCachedSecretBytes {
				break
			}
			s.drop(ok)
		}
	}
	s.cached[k] = c
	s.bytes += c.size
}

func (s *secretReader) drop(k secretKey) {
	s.bytes -= s.cached[k].size
	delete(s.cached, k)
}
