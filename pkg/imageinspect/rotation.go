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

import "slices"

// A credential scope is keyed by the names of its pull secrets, not by
// what they hold: Lookup computes the key on the scheduling path, with no
// I/O. So facts obtained with a secret would answer for its name after the
// secret was rotated, or deleted to revoke access, for as long as they are
// cached (a digest's, for ever). The secret reader reads each secret again
// past its TTL, when a run of a scope naming it needs it, and tells
// forgetSecret when it finds another version; a run that read a secret
// which changed before it ended fails and is retried (errSecretChanged).

// forgetSecret drops every fact of the scopes that name the pull secret
// namespace/name, by tag and by digest, so that each is resolved again
// with the secret as it is now. An entry someone waits on, or whose run is
// under way, stays, without its facts: the run's outcome replaces them.
// Failures go too: the new secret may succeed.
func (r *Resolver) forgetSecret(namespace, name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range slices.Clone(r.cache.scopedIn[namespace]) {
		switch {
		case !inScope(e.scope, namespace, name):
		case !e.pinned():
			r.cache.remove(e)
		case e.res.State == StateResolved:
			r.cache.update(e, func() { e.res = Result{} })
		}
	}
}
