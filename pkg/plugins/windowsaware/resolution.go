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

package windowsaware

import (
	"container/list"
	"context"
	"fmt"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/utils/clock"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/imagefacts"
	"github.com/windows-aware/windows-aware/pkg/imageinspect"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// Where a tag names no Windows build, the image's registry knows the
// platforms it comes in. Reading them is I/O, so it never happens on the
// scheduling path: PreEnqueue holds a pod whose images are still unknown
// (a map lookup under the queue lock), a pool of background resolvers
// (package imageinspect) reads the registry, stores the facts and then
// wakes the pod with Handle.Activate, and PreFilter reads the stored facts.
// A pod is held at most gateTimeout; after that, or when the registry
// failed, onFailure decides: the tag rules, or a visible rejection that
// names the image and the error. Either way the pod gets one Event.

// resolution is the plugin's side of image resolution.
type resolution struct {
	args *config.ImageResolution
	// facts are the resolver and what its answers mean.
	facts  *imagefacts.Facts
	handle fwk.Handle
	clock  clock.WithDelayedExecution

	mu sync.Mutex
	// held are the pods PreEnqueue has held, or whose images failed to
	// resolve, by UID: when they were first held, for the timeout, and
	// whether they got their Event.
	held map[types.UID]*heldPod
	// heldOrder lists held in the order they were first held, oldest at
	// the front, so that the oldest are dropped without a scan.
	heldOrder *list.List
	// maxHeld bounds held.
	maxHeld int
	// byKey finds a held pod from the waiter key the resolver reports.
	byKey map[string]*heldPod
}

// newResolution starts the resolver of args, or returns nil when
// resolution is off.
func newResolution(ctx context.Context, args *config.ImageResolution, decider *podneeds.Decider, h fwk.Handle) (*resolution, error) {
	var getSecret imageinspect.SecretGetter
	if imageinspect.Enabled(args) && args.Credentials.PodPullSecrets && h != nil {
		client, err := imagefacts.PullSecretClient(h.KubeConfig(), h.ClientSet())
		if err != nil {
			return nil, fmt.Errorf("imageResolution: %w", err)
		}
		if client != nil {
			getSecret = imagefacts.SecretGetterOf(client)
		}
	}
	return startResolution(ctx, args, decider, h, getSecret)
}

// startResolution starts the resolver of args, reading pull secrets with
// getSecret; h, when not nil, is the framework whose pods it wakes. It
// returns nil when resolution is off.
func startResolution(ctx context.Context, args *config.ImageResolution, decider *podneeds.Decider, h fwk.Handle, getSecret imageinspect.SecretGetter) (*resolution, error) {
	res := &resolution{
		args:      args,
		handle:    h,
		clock:     clock.RealClock{},
		held:      map[types.UID]*heldPod{},
		heldOrder: list.New(),
		maxHeld:   defaultMaxHeld,
		byKey:     map[string]*heldPod{},
	}
	facts, err := imagefacts.Start(ctx, args, decider, getSecret, res.wake)
	if err != nil || facts == nil {
		return nil, err
	}
	res.facts = facts
	return res, nil
}

// PreEnqueue holds a pod while an image it needs is being resolved, at
// most gateTimeout. It runs under the scheduling queue's lock: it looks
// facts up, queues work for the resolver, and never waits or calls back
// into the queue.
func (pl *WindowsAware) PreEnqueue(_ context.Context, pod *v1.Pod) *fwk.Status {
	res := pl.resolution
	if res == nil || res.args.GateTimeout.Duration == 0 || !res.facts.Resolves(pl.decider.DeclaredOS(pod)) {
		return nil
	}
	var waiting string
	pulls := imagefacts.PullSecretsOf(pod)
	// Images past the pod's MaxImagesPerPod are never asked about, so
	// never held for: PreFilter places them as unresolved.
	res.facts.ForEachImageToResolve(pod, func(ref string) bool {
		if !pl.decider.WantsRegistry(ref) {
			return true
		}
		r, known := res.facts.Resolver().Lookup(ref, pulls)
		switch {
		case known && r.State == imageinspect.StateResolved:
			if r.Stale {
				// Served meanwhile; refreshed in the background.
				res.facts.Resolver().Want(ref, "", pulls)
			}
			return true
		case known && r.State == imageinspect.StateFailed:
			// Ask again: within negativeTTL of the failure, and for the
			// same pull secrets, the resolver declines at once and the
			// pod goes on to onFailure; past it, or with other
			// secrets, a new attempt is worth waiting for.
			if !res.facts.Resolver().Want(ref, podKey(pod), pulls) {
				return true
			}
		}
		waiting = ref
		return false
	})
	if waiting == "" {
		res.release(pod)
		return nil
	}
	if !res.hold(pod) {
		return nil // held long enough: PreFilter applies onFailure
	}
	key := podKey(pod)
	queued := false
	res.facts.ForEachImageToResolve(pod, func(ref string) bool {
		if pl.decider.WantsRegistry(ref) && res.facts.Resolver().Want(ref, key, pulls) {
			queued = true
		}
		return true
	})
	if !queued {
		// Nothing to wait for (e.g. a registry the policy refuses): the
		// pod is not held, and its timer must not wake it later.
		res.release(pod)
		return nil
	}
	return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf("waiting for the registry to tell the platforms of image %q", waiting))
}

// hold records that pod is held and reports whether it may be held still:
// false once gateTimeout has passed since it was first held. A timer wakes
// the pod at its deadline, so that a registry that never answers costs it
// gateTimeout, not the queue's periodic flush.
func (res *resolution) hold(pod *v1.Pod) bool {
	res.mu.Lock()
	defer res.mu.Unlock()
	h, added := res.entryLocked(pod)
	if added {
		h.timer = res.clock.AfterFunc(res.args.GateTimeout.Duration, func() { res.activate(h.key) })
	}
	h.pod = pod
	return res.clock.Since(h.since) < res.args.GateTimeout.Duration
}

// wake is the resolver's callback: the facts of an image are stored, so
// the pods waiting for it go back to the active queue, where PreEnqueue
// runs again and finds them.
func (res *resolution) wake(_ string, waiters []string) {
	for _, key := range waiters {
		res.activate(key)
	}
}

func (res *resolution) activate(key string) {
	res.mu.Lock()
	h, ok := res.byKey[key]
	var pod *v1.Pod
	if ok {
		pod = h.pod
	}
	res.mu.Unlock()
	if pod == nil || res.handle == nil {
		return
	}
	res.handle.Activate(klog.Background(), map[string]*v1.Pod{key: pod})
}

// preFilterFacts are the facts PreFilter reads: it asks the
// resolver for what it does not know and records an Event for what the
// registry could not tell (platformsOf), for pods in scope. Of the others
// it reads what the cache already holds, and neither asks nor records
// anything: a pod out of scope is never held for, nor told of, a registry.
type preFilterFacts struct{ res *resolution }

var (
	_ podneeds.Facts      = preFilterFacts{}
	_ podneeds.KnownFacts = preFilterFacts{}
)

func (f preFilterFacts) Resolves(declaredOS string) bool { return f.res.facts.Resolves(declaredOS) }

func (f preFilterFacts) PlatformsOf(pod *v1.Pod, ref string) (podneeds.Listing, bool, error) {
	return f.res.platformsOf(pod, ref)
}

func (f preFilterFacts) KnownPlatformsOf(pod *v1.Pod, ref string) (podneeds.Listing, bool) {
	return f.res.facts.KnownPlatformsOf(pod, ref)
}

// platformsOf returns what the registry told of ref for PreFilter: the
// listing, or, when it could not tell, the onFailure policy's error (nil
// under TagRules). known is false when the registry was not asked or has
// not answered yet. It asks the resolver for what it does not know and
// records an Event for what the registry could not tell; queueing hints
// and tools read imagefacts.Facts, which does neither.
func (res *resolution) platformsOf(pod *v1.Pod, ref string) (listing podneeds.Listing, known bool, err error) {
	if !res.facts.Resolvable(pod, ref) {
		// Past the pod's MaxImagesPerPod: never asked about. One Event
		// for all such images of the pod, not one each.
		res.warn(pod, "", fmt.Sprintf("the platforms of image %q and any later ones are not read: %v", ref, imagefacts.ErrTooManyImages))
		return podneeds.Listing{}, false, res.facts.Failure(ref, imagefacts.ErrTooManyImages)
	}
	r, ok := res.facts.Resolver().Lookup(ref, imagefacts.PullSecretsOf(pod))
	if !ok {
		// Not asked yet (a pod PreEnqueue does not hold): ask now, in the
		// background, for the next attempt.
		res.facts.Resolver().Want(ref, podKey(pod), imagefacts.PullSecretsOf(pod))
	}
	if !ok || r.State == imageinspect.StatePending {
		res.warn(pod, ref, fmt.Sprintf("the registry did not tell the platforms of image %q within %s", ref, res.args.GateTimeout.Duration))
		return podneeds.Listing{}, false, res.facts.Failure(ref, fmt.Errorf("its registry has not answered yet"))
	}
	if r.State == imageinspect.StateFailed {
		if r.Class == imageinspect.ClassRefused {
			// The registry is not allowlisted, or its address is private:
			// the administrator chose not to ask it, so its images are
			// placed by their tags, quietly.
			return podneeds.Listing{}, false, nil
		}
		// Register the pod for the next attempt (after negativeTTL), so
		// that a pod kept unschedulable under onFailure Reject is woken
		// when it succeeds.
		res.facts.Resolver().Want(ref, podKey(pod), imagefacts.PullSecretsOf(pod))
		res.warn(pod, ref, fmt.Sprintf("could not read the platforms of image %q: %v", ref, r.Err))
		return podneeds.Listing{}, false, res.facts.Failure(ref, r.Err)
	}
	if r.Changed != nil {
		res.tellBuildsChanged(pod, ref, r.Changed)
	}
	return podneeds.Listing{Platforms: r.Platforms, Summary: r.Summary}, true, nil
}

// warn records one Event per pod and image whose platforms are unknown.
func (res *resolution) warn(pod *v1.Pod, ref, msg string) {
	res.mu.Lock()
	h, _ := res.entryLocked(pod)
	if h.warned == nil {
		h.warned = map[string]bool{}
	}
	first := !h.warned[ref]
	h.warned[ref] = true
	res.mu.Unlock()
	if !first || res.handle == nil || res.handle.EventRecorder() == nil {
		return
	}
	action := "placing the pod by its image tags"
	if res.args.OnFailure == config.OnFailureReject {
		action = "keeping the pod unschedulable until it does"
	}
	res.handle.EventRecorder().Eventf(pod, nil, v1.EventTypeWarning, wellknown.EventImagePlatformsUnknown, "Scheduling", "%s; %s", msg, action)
}

func podKey(pod *v1.Pod) string { return pod.Namespace + "/" + pod.Name }
