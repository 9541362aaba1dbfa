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

package imagefacts

import (
	"context"
	"errors"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/pkg/imageinspect"
)

// Outside a scheduler, publish mode resolves a gated pod's images itself
// and then writes what the profile decides into the pod: it asks the same
// resolver, with the same args, and decides with the same podneeds.
// Waiting is fine there, as nothing is being scheduled meanwhile.

// UnresolvedError is an image of a pod whose platforms the registry did
// not tell: it failed, or had not answered when the wait ended.
type UnresolvedError struct {
	// Image is the reference as the pod names it.
	Image string
	// Err is the registry's error (naming the image and the registry
	// host), or the context's when the registry had not answered.
	Err error
}

func (e *UnresolvedError) Error() string {
	if _, registry := e.Err.(*imageinspect.Error); registry {
		return e.Err.Error()
	}
	if errors.Is(e.Err, context.DeadlineExceeded) {
		return fmt.Sprintf("image %q: its registry has not answered in time", e.Image)
	}
	return fmt.Sprintf("image %q: its registry has not answered: %v", e.Image, e.Err)
}

func (e *UnresolvedError) Unwrap() error { return e.Err }

// Resolve asks the registries for the platforms of the pod's images that
// the scheduler would resolve (in scope, tag without a build, allowlisted)
// and waits until each is known, resolved or failed, or ctx ends. It
// returns nil when every one resolved (or is one the policy refuses to
// ask about, which the tag rules place quietly), else an *UnresolvedError
// for the first image that failed or was still unanswered. Decide then
// decides with what was learnt, and applies onFailure to the rest: the
// tag rules, or under Reject a conflict that names the image.
//
// It blocks: call it off the scheduling path. A failure is not waited
// out: as in the scheduler, the resolver retries in the background and
// the next pods of the image find the result.
//
// An image the resolver takes no run for and knows nothing of (it has as
// many pull-secret scopes under way as it may have, or the answer came
// between the two looks) is looked at again after a backoff, never at
// once: other scopes' runs against a stalled registry can hold it for as
// long as ctx lasts, and each pass costs a lock and a walk of the pod.
func (f *Facts) Resolve(ctx context.Context, pod *v1.Pod) error {
	if f == nil || !f.Resolves(f.decider.DeclaredOS(pod)) {
		return nil
	}
	key := "resolve/" + string(pod.UID) + "/" + pod.Namespace + "/" + pod.Name
	pulls := PullSecretsOf(pod)
	crowdedWait := crowdedBackoffMin
	for {
		resolvePass()
		woken := f.block(key)
		var (
			waiting string
			failed  error
			crowded string
		)
		// Images past MaxImagesPerPod are not waited for: Decide applies
		// onFailure to them.
		f.ForEachImageToResolve(pod, func(ref string) bool {
			if !f.decider.WantsRegistry(ref) {
				return true
			}
			r, known := f.resolver.Lookup(ref, pulls)
			if !known || !settled(r) {
				if f.resolver.Want(ref, key, pulls) {
					// A run is queued or going on (for a failed image:
					// past negativeTTL, or with other pull secrets).
					waiting = ref
					return false
				}
				// No run: Want may have refused the image at once, or
				// the answer came between the two looks.
				r, known = f.resolver.Lookup(ref, pulls)
			}
			switch {
			case known && settled(r):
				return true
			case known && r.State == imageinspect.StateFailed:
				if failed == nil {
					failed = &UnresolvedError{Image: ref, Err: r.Err}
				}
				return true
			}
			// No run and nothing known: the image has as many
			// pull-secret scopes under way as it may have.
			crowded = ref
			return false
		})
		// retry is nil (never ready) unless the pass found no room.
		var retry <-chan time.Time
		switch {
		case crowded != "":
			waiting = crowded
			timer := time.NewTimer(crowdedWait)
			retry = timer.C
			crowdedWait = min(2*crowdedWait, crowdedBackoffMax)
		case waiting == "":
			f.unblock(key)
			return failed
		}
		select {
		case <-woken:
		case <-retry:
		case <-ctx.Done():
			f.unblock(key)
			return &UnresolvedError{Image: waiting, Err: ctx.Err()}
		}
	}
}

// The backoff of Resolve for an image the resolver has no room for: a
// scope's run ends within the run timeout, and the pod's next pass should
// find room soon after, without many passes before.
const (
	crowdedBackoffMin = 10 * time.Millisecond
	crowdedBackoffMax = time.Second
)

// settled reports a result Resolve needs nothing more of: resolved, or a
// refusal the policy places by the tag rules quietly.
func settled(r imageinspect.Result) bool {
	return r.State == imageinspect.StateResolved || r.State == imageinspect.StateFailed && r.Class == imageinspect.ClassRefused
}

// resolvePass is called at the start of each pass of Resolve; tests count
// the passes with it.
var resolvePass = func() {}

// block registers a caller of Resolve waiting under key and returns the
// channel the resolver's callback signals; unblock signals and forgets it.
func (f *Facts) block(key string) <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch, ok := f.blocked[key]
	if !ok {
		ch = make(chan struct{}, 1)
		f.blocked[key] = ch
	}
	return ch
}

func (f *Facts) unblock(key string) {
	f.mu.Lock()
	ch, ok := f.blocked[key]
	delete(f.blocked, key)
	f.mu.Unlock()
	if ok {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}
