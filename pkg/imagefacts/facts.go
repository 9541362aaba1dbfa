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
	"fmt"
	"sync"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/imageinspect"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// Facts is a running resolver under one profile's args, and what its
// answers mean for a pod. It implements podneeds.Facts without side
// effects: it looks up, never asks.
type Facts struct {
	args     *config.ImageResolution
	resolver *imageinspect.Resolver
	decider  *podneeds.Decider

	mu sync.Mutex
	// blocked are the callers of Resolve waiting for a result, by the
	// waiter key they gave the resolver.
	blocked map[string]chan struct{}
}

var (
	_ podneeds.Facts      = &Facts{}
	_ podneeds.KnownFacts = &Facts{}
)

// Start starts the resolver of args until ctx ends, reading the Secrets a
// pod names through getSecret when the args allow it (nil for none), and
// returns its Facts; nil when resolution is off. onResolved, when not nil,
// is told too when an image's run ends, with the waiter keys given to the
// resolver's Want (the scheduler wakes its held pods with it).
func Start(ctx context.Context, args *config.ImageResolution, decider *podneeds.Decider, getSecret imageinspect.SecretGetter,
	onResolved func(image string, waiters []string)) (*Facts, error) {
	if !imageinspect.Enabled(args) {
		return nil, nil
	}
	resolver, err := imageinspect.New(imageinspect.ConfigFromArgs(args, getSecret))
	if err != nil {
		return nil, fmt.Errorf("imageResolution: %w", err)
	}
	f := &Facts{args: args, resolver: resolver, decider: decider, blocked: map[string]chan struct{}{}}
	resolver.OnResolved(func(image string, waiters []string) {
		for _, key := range waiters {
			f.unblock(key)
		}
		if onResolved != nil {
			onResolved(image, waiters)
		}
	})
	resolver.Start(ctx)
	return f, nil
}

// Resolver is the resolver the facts come from.
func (f *Facts) Resolver() *imageinspect.Resolver { return f.resolver }

// Args are the imageResolution args the facts follow.
func (f *Facts) Args() *config.ImageResolution { return f.args }

// Resolves reports whether the images of a pod whose declared OS is os
// (as the pod or its tags declare it, "" when undeclared) are resolved.
func (f *Facts) Resolves(os string) bool { return scopeCovers(f.args.Scope, os) }

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

// PlatformsOf is what the registry told of ref, as the pod may see it,
// without asking anything: the listing when resolved; nothing for an
// image the policy refuses to ask about (placed by its tag, quietly); else
// the onFailure policy's error (nil under TagRules). An image past the
// pod's MaxImagesPerPod is never asked about: it is as one whose registry
// has not answered.
func (f *Facts) PlatformsOf(pod *v1.Pod, ref string) (podneeds.Listing, bool, error) {
	if !f.Resolvable(pod, ref) {
		return podneeds.Listing{}, false, f.Failure(ref, ErrTooManyImages)
	}
	r, ok := f.resolver.Lookup(ref, PullSecretsOf(pod))
	if ok && r.State == imageinspect.StateResolved {
		return podneeds.Listing{Platforms: r.Platforms, Summary: r.Summary}, true, nil
	}
	var cause error = fmt.Errorf("its registry has not answered yet")
	if ok && r.State == imageinspect.StateFailed {
		if r.Class == imageinspect.ClassRefused {
			return podneeds.Listing{}, false, nil
		}
		cause = r.Err
	}
	return podneeds.Listing{}, false, f.Failure(ref, cause)
}

// KnownPlatformsOf is what the resolver's cache holds of ref for a pod
// whose images are not resolved (out of scope): the listing when it is
// resolved and fresh, as the pod may see it (its namespace and pull
// secrets), else nothing. It never asks and never fails: a failure, a
// refusal or facts past tagTTL, which nothing refreshes for such a pod,
// are as nothing known, and the tag decides. An image past the pod's
// MaxImagesPerPod (Resolvable) is not read. Like the cache
// lookup, it allocates nothing but for a pod that names pull secrets when
// podPullSecrets is on.
func (f *Facts) KnownPlatformsOf(pod *v1.Pod, ref string) (podneeds.Listing, bool) {
	if !f.Resolvable(pod, ref) {
		return podneeds.Listing{}, false
	}
	pulls := imageinspect.PullSecrets{Namespace: pod.Namespace}
	if f.args.Credentials.PodPullSecrets {
		// Only then do the names make the pod's scope.
		pulls = PullSecretsOf(pod)
	}
	r, ok := f.resolver.Known(ref, pulls)
	if !ok {
		return podneeds.Listing{}, false
	}
	return podneeds.Listing{Platforms: r.Platforms, Summary: r.Summary}, true
}

// ErrTooManyImages is why an image of a pod past its MaxImagesPerPod
// containers has no platforms: the resolver is never asked about it.
var ErrTooManyImages = fmt.Errorf("the pod has more than %d containers whose images the registry is asked about; the others are not resolved", imageinspect.DefaultMaxImagesPerPod)

// ForEachImageToResolve calls fn for the image of each of the pod's first
// MaxImagesPerPod containers (init containers first), until fn returns
// false: the images the resolver may be asked about for this pod. Images
// of later containers are never resolved, so that one pod cannot queue
// thousands of runs. It does not allocate.
func (f *Facts) ForEachImageToResolve(pod *v1.Pod, fn func(ref string) bool) {
	ForEachImageWithin(pod, f.resolver.MaxImagesPerPod(), fn)
}

// Resolvable reports whether ref is the image of one of the pod's first
// MaxImagesPerPod containers: one the resolver may be asked about.
func (f *Facts) Resolvable(pod *v1.Pod, ref string) bool {
	found := false
	f.ForEachImageToResolve(pod, func(image string) bool {
		found = image == ref
		return !found
	})
	return found
}

// ForEachImageWithin calls fn for the image of each of the pod's first max
// containers, init containers first, until fn returns false.
func ForEachImageWithin(pod *v1.Pod, max int, fn func(ref string) bool) {
	n := 0
	podneeds.ForEachImage(pod, func(ref string) bool {
		if n >= max {
			return false
		}
		n++
		return fn(ref)
	})
}

// Failure is the error a pod is rejected with when the registry could not
// tell ref's platforms for cause, under onFailure Reject; nil under
// TagRules, where the tag decides.
func (f *Facts) Failure(ref string, cause error) error {
	if f.args.OnFailure != config.OnFailureReject {
		return nil
	}
	return fmt.Errorf("waiting for the platforms of image %q (onFailure: Reject): %v", ref, cause)
}

// WaitsForRegistry reports whether args make the scheduler hold the pod
// until a registry tells the platforms of one of its images, and names
// that image: resolution is on and holds pods (gateTimeout > 0), the pod's
// declared OS is in scope, and an image's tag names no build and its
// registry is allowlisted. It reads the args alone, never a resolver's
// cache, so it answers alike in the scheduler and in programs that start
// no resolver, such as the admission webhook, which gates such pods at
// creation.
func WaitsForRegistry(args *config.ImageResolution, decider *podneeds.Decider, pod *v1.Pod) (image string, waits bool) {
	if !imageinspect.Enabled(args) || args.GateTimeout.Duration == 0 || !scopeCovers(args.Scope, decider.DeclaredOS(pod)) {
		return "", false
	}
	registries := imageinspect.ConfigFromArgs(args, nil).Registries
	podneeds.ForEachImage(pod, func(ref string) bool {
		if decider.WantsRegistry(ref) && imageinspect.Allowlisted(registries, ref) {
			image = ref
			return false
		}
		return true
	})
	return image, image != ""
}

// PullSecretsOf is the pod's credential scope: the facts it may see and
// the credentials it is resolved with. Only the first
// imageinspect.DefaultMaxPullSecretsPerPod names count: the others are
// never read, and two pods that differ only past them share a scope. It
// allocates only for a pod that names pull secrets.
func PullSecretsOf(pod *v1.Pod) imageinspect.PullSecrets {
	p := imageinspect.PullSecrets{Namespace: pod.Namespace}
	if len(pod.Spec.ImagePullSecrets) == 0 {
		return p
	}
	secrets := pod.Spec.ImagePullSecrets[:min(len(pod.Spec.ImagePullSecrets), imageinspect.DefaultMaxPullSecretsPerPod)]
	p.Names = make([]string, 0, len(secrets))
	for _, s := range secrets {
		p.Names = append(p.Names, s.Name)
	}
	return p
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

// SecretGetterOf reads pull secrets through client, by name.
func SecretGetterOf(client kubernetes.Interface) imageinspect.SecretGetter {
	return func(ctx context.Context, namespace, name string) (*v1.Secret, error) {
		return client.CoreV1().Secrets(namespace).Get(ctx, name, metav1.GetOptions{})
	}
}
