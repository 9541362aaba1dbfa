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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/utils/clock"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/imageinspect"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/windows"
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

// Event reasons of image resolution.
const (
	// EventImagePlatformsUnknown: the registry did not tell an image's
	// platforms in time, and the pod is placed by the tag rules or kept
	// unschedulable, as onFailure says.
	EventImagePlatformsUnknown = "ImagePlatformsUnknown"
)

// resolution is the plugin's side of image resolution.
type resolution struct {
	args     *config.ImageResolution
	resolver *imageinspect.Resolver
	handle   fwk.Handle
	clock    clock.WithDelayedExecution

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
	// blocked are the callers of Resolve waiting for a result, by the
	// waiter key they gave the resolver.
	blocked map[string]chan struct{}
}

// newResolution starts the resolver of args, or returns nil when
// resolution is off.
func newResolution(ctx context.Context, args *config.ImageResolution, h fwk.Handle) (*resolution, error) {
	var getSecret imageinspect.SecretGetter
	if imageinspect.Enabled(args) && args.Credentials.PodPullSecrets && h != nil {
		client, err := PullSecretClient(h.KubeConfig(), h.ClientSet())
		if err != nil {
			return nil, fmt.Errorf("imageResolution: %w", err)
		}
		if client != nil {
			getSecret = SecretGetterOf(client)
		}
	}
	return startResolution(ctx, args, h, getSecret)
}

// Pull-secret reads go through a client of their own, so that they never
// spend the rate limit of the client that binds pods; the resolver
// deduplicates, caches and bounds them besides.
const (
	pullSecretQPS   = 5
	pullSecretBurst = 10
)

// PullSecretClient is the client pull secrets are read with: one built
// from cfg with its own rate limit and user agent, or fallback when there
// is no rest config (a framework built in tests).
func PullSecretClient(cfg *rest.Config, fallback kubernetes.Interface) (kubernetes.Interface, error) {
	if cfg == nil || cfg.Host == "" {
		return fallback, nil
	}
	own := rest.CopyConfig(cfg)
	own.QPS, own.Burst, own.RateLimiter = pullSecretQPS, pullSecretBurst, nil
	own.UserAgent = rest.DefaultKubernetesUserAgent() + "/pull-secrets"
	client, err := kubernetes.NewForConfig(own)
	if err != nil {
		return nil, fmt.Errorf("the client for pull secrets: %w", err)
	}
	return client, nil
}

// SecretGetterOf reads pull secrets through client.
func SecretGetterOf(client kubernetes.Interface) imageinspect.SecretGetter {
	return func(ctx context.Context, namespace, name string) (*v1.Secret, error) {
		return client.CoreV1().Secrets(namespace).Get(ctx, name, metav1.GetOptions{})
	}
}

// startResolution starts the resolver of args, reading pull secrets with
// getSecret; h, when not nil, is the framework whose pods it wakes.
func startResolution(ctx context.Context, args *config.ImageResolution, h fwk.Handle, getSecret imageinspect.SecretGetter) (*resolution, error) {
	if !imageinspect.Enabled(args) {
		return nil, nil
	}
	resolver, err := imageinspect.New(imageinspect.ConfigFromArgs(args, getSecret))
	if err != nil {
		return nil, fmt.Errorf("imageResolution: %w", err)
	}
	res := &resolution{
		args:      args,
		resolver:  resolver,
		handle:    h,
		clock:     clock.RealClock{},
		held:      map[types.UID]*heldPod{},
		heldOrder: list.New(),
		maxHeld:   defaultMaxHeld,
		byKey:     map[string]*heldPod{},
		blocked:   map[string]chan struct{}{},
	}
	resolver.OnResolved(res.wake)
	resolver.Start(ctx)
	return res, nil
}

// inScope reports whether the images of a pod whose OS is os (as the pod
// or its tags declare it, "" when undeclared) are resolved.
func (res *resolution) inScope(os string) bool { return scopeCovers(res.args.Scope, os) }

// scopeCovers reports whether scope resolves the images of a pod whose
// declared OS is os.
func scopeCovers(scope, os string) bool {
	switch scope {
	case config.ResolutionWindows:
		return os == windows.OSWindows
	case config.ResolutionUndeclared:
		return os == windows.OSWindows || os == ""
	}
	return false
}

// WaitsForRegistry reports whether the plugin's args make it hold the pod
// at PreEnqueue until a registry tells the platforms of one of its images,
// and names that image: resolution is on and holds pods (gateTimeout > 0),
// the pod's declared OS is in scope, and an image's tag names no build and
// its registry is allowlisted. It reads the args alone, never the
// resolver's cache, so it answers alike in the scheduler and in tools that
// start no resolver, such as the admission webhook, which gates such pods
// at creation.
func (pl *WindowsAware) WaitsForRegistry(pod *v1.Pod) (image string, waits bool) {
	args := &pl.args.ImageResolution
	if !imageinspect.Enabled(args) || args.GateTimeout.Duration == 0 || !scopeCovers(args.Scope, pl.decider.DeclaredOS(pod)) {
		return "", false
	}
	registries := imageinspect.ConfigFromArgs(args, nil).Registries
	podneeds.ForEachImage(pod, func(ref string) bool {
		if pl.decider.WantsRegistry(ref) && imageinspect.Allowlisted(registries, ref) {
			image = ref
			return false
		}
		return true
	})
	return image, image != ""
}

// PreEnqueue holds a pod while an image it needs is being resolved, at
// most gateTimeout. It runs under the scheduling queue's lock: it looks
// facts up, queues work for the resolver, and never waits or calls back
// into the queue.
func (pl *WindowsAware) PreEnqueue(_ context.Context, pod *v1.Pod) *fwk.Status {
	res := pl.resolution
	if res == nil || res.args.GateTimeout.Duration == 0 || !res.inScope(pl.decider.DeclaredOS(pod)) {
		return nil
	}
	var waiting string
	pulls := pullSecretsOf(pod)
	podneeds.ForEachImage(pod, func(ref string) bool {
		if !pl.decider.WantsRegistry(ref) {
			return true
		}
		r, known := res.resolver.Lookup(ref, pulls)
		switch {
		case known && r.State == imageinspect.StateResolved:
			if r.Stale {
				// Served meanwhile; refreshed in the background.
				res.resolver.Want(ref, "", pulls)
			}
			return true
		case known && r.State == imageinspect.StateFailed:
			// Ask again: within negativeTTL of the failure, and for the
			// same pull secrets, the resolver declines at once and the
			// pod goes on to onFailure; past it, or with other
			// secrets, a new attempt is worth waiting for.
			if !res.resolver.Want(ref, podKey(pod), pulls) {
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
	podneeds.ForEachImage(pod, func(ref string) bool {
		if pl.decider.WantsRegistry(ref) && res.resolver.Want(ref, key, pulls) {
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
		res.unblock(key)
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

// resolutionFacts is what the resolver knows, as the decision asks it.
type resolutionFacts struct {
	res   *resolution
	quiet bool
}

func (f resolutionFacts) Resolves(declaredOS string) bool { return f.res.inScope(declaredOS) }

func (f resolutionFacts) PlatformsOf(pod *v1.Pod, ref string) (podneeds.Listing, bool, error) {
	r, known, err := f.res.platformsOf(pod, ref, f.quiet)
	return podneeds.Listing{Platforms: r.Platforms, Summary: r.Summary}, known, err
}

// platformsOf returns what the registry told of ref for PreFilter: the
// facts (platforms and their summary), or, when it could not tell, the error, with whether the
// onFailure policy rejects the pod for it. known is false when the
// registry was not asked or has not answered yet. Unless quiet, it asks
// the resolver for what it does not know and records an Event for what the
// registry could not tell.
func (res *resolution) platformsOf(pod *v1.Pod, ref string, quiet bool) (facts imageinspect.Result, known bool, err error) {
	r, ok := res.resolver.Lookup(ref, pullSecretsOf(pod))
	if quiet {
		if ok && r.State == imageinspect.StateResolved {
			return r, true, nil
		}
		var cause error = fmt.Errorf("its registry has not answered yet")
		if ok && r.State == imageinspect.StateFailed {
			if r.Class == imageinspect.ClassRefused {
				return imageinspect.Result{}, false, nil
			}
			cause = r.Err
		}
		return imageinspect.Result{}, false, res.failure(ref, cause)
	}
	if !ok {
		// Not asked yet (a pod PreEnqueue does not hold): ask now, in the
		// background, for the next attempt.
		res.resolver.Want(ref, podKey(pod), pullSecretsOf(pod))
	}
	if !ok || r.State == imageinspect.StatePending {
		res.warn(pod, ref, fmt.Sprintf("the registry did not tell the platforms of image %q within %s", ref, res.args.GateTimeout.Duration))
		return imageinspect.Result{}, false, res.failure(ref, fmt.Errorf("its registry has not answered yet"))
	}
	if r.State == imageinspect.StateFailed {
		if r.Class == imageinspect.ClassRefused {
			// The registry is not allowlisted, or its address is private:
			// the administrator chose not to ask it, so its images are
			// placed by their tags, quietly.
			return imageinspect.Result{}, false, nil
		}
		// Register the pod for the next attempt (after negativeTTL), so
		// that a pod kept unschedulable under onFailure Reject is woken
		// when it succeeds.
		res.resolver.Want(ref, podKey(pod), pullSecretsOf(pod))
		res.warn(pod, ref, fmt.Sprintf("could not read the platforms of image %q: %v", ref, r.Err))
		return imageinspect.Result{}, false, res.failure(ref, r.Err)
	}
	return r, true, nil
}

// failure is the error PreFilter rejects the pod with under onFailure
// Reject, or nil under TagRules.
func (res *resolution) failure(ref string, err error) error {
	if res.args.OnFailure != config.OnFailureReject {
		return nil
	}
	return fmt.Errorf("waiting for the platforms of image %q (onFailure: Reject): %v", ref, err)
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
	res.handle.EventRecorder().Eventf(pod, nil, v1.EventTypeWarning, EventImagePlatformsUnknown, "Scheduling", "%s; %s", msg, action)
}

func podKey(pod *v1.Pod) string { return pod.Namespace + "/" + pod.Name }

// pullSecretsOf is the pod's credential scope: the facts it may see and
// the credentials it is resolved with. It allocates only for a pod that
// names pull secrets.
func pullSecretsOf(pod *v1.Pod) imageinspect.PullSecrets {
	p := imageinspect.PullSecrets{Namespace: pod.Namespace}
	if len(pod.Spec.ImagePullSecrets) == 0 {
		return p
	}
	p.Names = make([]string, 0, len(pod.Spec.ImagePullSecrets))
	for _, s := range pod.Spec.ImagePullSecrets {
		p.Names = append(p.Names, s.Name)
	}
	return p
}
