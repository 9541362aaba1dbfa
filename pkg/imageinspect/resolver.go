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
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/windows-aware/windows-aware/pkg/windows"
)

// Config configures a Resolver. FromArgs builds one from the plugin args.
type Config struct {
	// Registries allowlists the registries that may be asked; images of
	// any other registry fail at once with ClassRefused.
	Registries []Registry
	// DockerConfigFile is a docker config.json with credentials for
	// private registries (e.g. a mounted Secret); "" for none.
	DockerConfigFile string
	// PodPullSecrets lets the resolver read the Secrets a pod names in
	// spec.imagePullSecrets, through GetSecret.
	PodPullSecrets bool
	// GetSecret reads one Secret by name; required with PodPullSecrets.
	GetSecret SecretGetter
	// MaxEntries bounds the cache (tags, digests and failures together).
	MaxEntries int
	// TagTTL is how long a tag's facts are fresh; digests never expire.
	TagTTL time.Duration
	// NegativeTTL is how long a failure stands before the same
	// credentials are tried again.
	NegativeTTL time.Duration
	// Workers is the number of concurrent resolutions.
	Workers int
	// PerRegistry bounds concurrent resolutions against one registry host.
	PerRegistry int
	// RequestTimeout bounds each registry request.
	RequestTimeout time.Duration
	// RunTimeout bounds one resolution run of an image: every request of
	// it, on every endpoint and credential, together. Default:
	// RunTimeoutRequests times RequestTimeout.
	RunTimeout time.Duration
	// MaxIndexEntries bounds the entries of an image index, nested
	// indexes counted together; an image with more fails as invalid.
	MaxIndexEntries int
	// RetryBaseDelay and RetryMaxDelay bound the per-image backoff of the
	// automatic retries after a registry was unavailable or rate limited.
	// Defaults: 1s and 5m.
	RetryBaseDelay, RetryMaxDelay time.Duration
	// MaxAutoRetries bounds the automatic retries of one failure; later
	// ones wait for a new Want. Default 8.
	MaxAutoRetries int
	// Clock dates cache entries; the real clock when nil.
	Clock clock.PassiveClock
}

// Defaults of the Config fields left zero.
const (
	DefaultMaxEntries     = 20000
	DefaultTagTTL         = 10 * time.Minute
	DefaultNegativeTTL    = time.Minute
	DefaultWorkers        = 8
	DefaultPerRegistry    = 4
	DefaultRequestTimeout = 10 * time.Second
	// DefaultMaxIndexEntries is far above real multi-platform lists (well
	// under 100 entries, attestations included).
	DefaultMaxIndexEntries = 256
	// RunTimeoutRequests is RunTimeout's default in requests: a HEAD, a
	// GET and one child read, each at its longest.
	RunTimeoutRequests = 3
)

// hostRequeueDelay is how soon a resolution put back because its registry
// is at its concurrency limit is tried again.
const hostRequeueDelay = 20 * time.Millisecond

// Resolver reads image platforms from registries in the background and
// answers from its cache. Lookup and Want never block on the network and
// may be called under the scheduler's queue lock.
type Resolver struct {
	cfg      Config
	clock    clock.PassiveClock
	policy   *egressPolicy
	creds    *credentials
	metrics  *resolverMetrics
	queue    workqueue.TypedRateLimitingInterface[string]
	backoff  workqueue.TypedRateLimiter[string]
	tr       map[*registryPolicy]http.RoundTripper
	resolved func(ref string, waiters []string)

	mu          sync.RWMutex
	cache       *cache
	activeHosts map[string]int
	pausedUntil map[string]time.Time
}

// New builds a Resolver; Start runs its workers.
func New(cfg Config) (*Resolver, error) {
	cfg = withDefaults(cfg)
	policy, err := newEgressPolicy(cfg.Registries)
	if err != nil {
		return nil, err
	}
	clk := cfg.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	creds, err := newCredentials(cfg.DockerConfigFile, cfg.PodPullSecrets, cfg.GetSecret, clk.Now)
	if err != nil {
		return nil, err
	}
	r := &Resolver{
		cfg:         cfg,
		clock:       clk,
		policy:      policy,
		creds:       creds,
		metrics:     newMetrics(),
		backoff:     workqueue.NewTypedItemExponentialFailureRateLimiter[string](cfg.RetryBaseDelay, cfg.RetryMaxDelay),
		tr:          map[*registryPolicy]http.RoundTripper{},
		cache:       newCache(cfg.MaxEntries),
		activeHosts: map[string]int{},
		pausedUntil: map[string]time.Time{},
	}
	// The queue only orders and deduplicates keys; delays are chosen by
	// the resolver (backoff, Retry-After), so its own limiter never waits.
	r.queue = workqueue.NewTypedRateLimitingQueueWithConfig[string](
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](0, 0),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "windows_aware_image_resolution"})
	for _, rp := range policy.registries {
		r.tr[rp] = policy.newGuardTransport(rp, cfg.RequestTimeout, r.metrics)
	}
	return r, nil
}

func withDefaults(cfg Config) Config {
	if cfg.MaxEntries <= 0 {
		cfg.MaxEntries = DefaultMaxEntries
	}
	if cfg.TagTTL <= 0 {
		cfg.TagTTL = DefaultTagTTL
	}
	if cfg.NegativeTTL <= 0 {
		cfg.NegativeTTL = DefaultNegativeTTL
	}
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers
	}
	if cfg.PerRegistry <= 0 {
		cfg.PerRegistry = DefaultPerRegistry
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.RunTimeout <= 0 {
		cfg.RunTimeout = RunTimeoutRequests * cfg.RequestTimeout
	}
	if cfg.MaxIndexEntries <= 0 {
		cfg.MaxIndexEntries = DefaultMaxIndexEntries
	}
	if cfg.RetryBaseDelay <= 0 {
		cfg.RetryBaseDelay = time.Second
	}
	if cfg.RetryMaxDelay <= 0 {
		cfg.RetryMaxDelay = 5 * time.Minute
	}
	if cfg.MaxAutoRetries <= 0 {
		cfg.MaxAutoRetries = 8
	}
	return cfg
}

// OnResolved sets the function told, from a worker goroutine, when a
// resolution ends (resolved or failed) with the waiters that Want
// registered for it. It runs after the result is stored, so a Lookup from
// it (or from the pods it wakes) sees the result. Set it before Start.
func (r *Resolver) OnResolved(fn func(ref string, waiters []string)) {
	r.mu.Lock()
	r.resolved = fn
	r.mu.Unlock()
}

// Start runs the workers until ctx is done.
func (r *Resolver) Start(ctx context.Context) {
	for range r.cfg.Workers {
		go wait.UntilWithContext(ctx, r.work, time.Second)
	}
	go func() {
		<-ctx.Done()
		r.queue.ShutDown()
	}()
}

// Lookup returns what the resolver knows of ref, spelt as the pod spells
// it, and whether it knows anything. It takes a read lock and a map
// lookup: no I/O, no allocation. ref is known once Want has been called
// for it.
func (r *Resolver) Lookup(ref string) (Result, bool) {
	r.mu.RLock()
	e, ok := r.cache.aliases[ref]
	if !ok {
		r.mu.RUnlock()
		r.metrics.misses.Inc()
		return Result{}, false
	}
	res := e.res
	if res.State == StateResolved && e.ref.isTag() && !r.clock.Now().Before(e.freshUntil) {
		res.Stale = true
	}
	r.mu.RUnlock()
	if !e.referenced.Load() {
		e.referenced.Store(true)
	}
	if res.State == StateResolved {
		r.metrics.hits.Inc()
	} else {
		r.metrics.misses.Inc()
	}
	return res, true
}

// Want asks for ref to be resolved, with the pod's pull secrets, and
// registers waiter (e.g. the pod's namespace/name; "" for none) to be
// passed to OnResolved when the run ends. It never blocks on I/O.
//
// It returns true when a run is queued or going on that will report to
// waiter: the caller may hold its pod until then. It returns false when
// there is nothing to wait for: the facts are known (stale tag facts are
// refreshed in the background meanwhile), or the image failed recently
// with these credentials, or resolution is refused for it.
func (r *Resolver) Want(ref, waiter string, pull PullSecrets) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.cache.aliases[ref]
	if !ok {
		e = r.entryFor(ref)
	}
	return r.wantLocked(e, waiter, pull)
}

// entryFor finds or creates the entry of a reference not yet aliased.
func (r *Resolver) entryFor(ref string) *entry {
	ir, err := parseRef(ref)
	if err != nil {
		ir = imageRef{key: ref}
	}
	if e, ok := r.cache.entries[ir.key]; ok {
		r.cache.addAlias(e, ref)
		return e
	}
	e := &entry{ref: ir}
	switch {
	case err != nil:
		e.res = r.failure(ref, "", err)
	case r.policy.registryFor(ir.host) == nil:
		e.res = r.failure(ref, ir.host, &refusedError{reason: "registry is not in the allowlist"})
	}
	if e.res.State == StateFailed {
		// Config decides these; no retry will change them.
		e.freshUntil = r.clock.Now().Add(100 * 365 * 24 * time.Hour)
		e.triedPulls = nil
	}
	r.cache.insert(e)
	r.cache.addAlias(e, ref)
	return e
}

func (r *Resolver) failure(image, host string, err error) Result {
	class, detail := classify(err)
	return Result{State: StateFailed, Class: class, Err: &Error{Image: image, Host: host, Class: class, Detail: detail}}
}

func (r *Resolver) wantLocked(e *entry, waiter string, pull PullSecrets) bool {
	if !r.cfg.PodPullSecrets {
		// Pull secret names change nothing then: one credential set.
		pull = PullSecrets{}
	}
	now := r.clock.Now()
	switch {
	case e.res.State == StateResolved:
		// Known facts are never waited for; stale ones are refreshed in
		// the background while they are served.
		if e.ref.isTag() && !now.Before(e.freshUntil) && !e.pending && !e.inflight {
			e.addPull(pull)
			r.enqueue(e, now)
		}
		return false
	case e.res.State == StateFailed && (e.res.Class == ClassRefused || e.res.Class == ClassInvalid && e.ref.name == ""):
		return false
	case e.res.State == StateFailed && !e.inflight && now.Before(e.freshUntil) && e.triedPulls[pull.key()]:
		// Failed recently with these credentials. A scheduled retry still
		// reports to the waiter, who does not wait for it meanwhile.
		if !e.retryAt.IsZero() {
			e.addWaiter(waiter)
		}
		return false
	case e.pending || e.inflight:
		if e.addPull(pull) && !e.pending {
			// New credentials while a run goes on: run again after it.
			r.enqueue(e, now)
		}
		e.addWaiter(waiter)
		return true
	}
	e.addPull(pull)
	e.addWaiter(waiter)
	r.enqueue(e, now)
	return true
}

func (r *Resolver) enqueue(e *entry, now time.Time) {
	r.cache.update(e, func() {
		if !e.pending {
			e.requested = now
		}
		e.pending = true
		e.retryAt = time.Time{}
	})
	r.queue.Add(e.ref.key)
}

func (r *Resolver) work(ctx context.Context) {
	for {
		key, shutdown := r.queue.Get()
		if shutdown {
			return
		}
		r.process(ctx, key)
		r.queue.Done(key)
	}
}

// run is one resolution's snapshot of its entry.
type run struct {
	e     *entry
	ref   imageRef
	rp    *registryPolicy
	pulls []PullSecrets
}

func (r *Resolver) process(ctx context.Context, key string) {
	rn, ok := r.startRun(key)
	if !ok {
		return
	}
	start := time.Now()
	out := r.resolveWithin(ctx, rn)
	r.finishRun(ctx, rn, out, time.Since(start))
}

// startRun claims the entry for a run, unless it needs none, or its
// registry is paused or at its concurrency limit (then it is put back).
func (r *Resolver) startRun(key string) (run, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.cache.entries[key]
	if !ok || !e.pending || e.inflight {
		return run{}, false
	}
	now := time.Now()
	if until, ok := r.pausedUntil[e.ref.host]; ok {
		if now.Before(until) {
			r.queue.AddAfter(key, until.Sub(now))
			return run{}, false
		}
		delete(r.pausedUntil, e.ref.host)
	}
	if r.activeHosts[e.ref.host] >= r.cfg.PerRegistry {
		r.queue.AddAfter(key, hostRequeueDelay)
		return run{}, false
	}
	r.activeHosts[e.ref.host]++
	e.pending, e.inflight = false, true
	return run{e: e, ref: e.ref, rp: r.policy.registryFor(e.ref.host), pulls: append([]PullSecrets(nil), e.pulls...)}, true
}

// outcome is what one run learnt.
type outcome struct {
	platforms  []windows.Platform
	digest     string
	err        *Error
	retryAfter time.Duration
}

// resolve asks the registry: each endpoint in turn, each credential in
// turn (as the kubelet tries each matching pull secret), until one
// answers. A tag is HEADed for its digest first; a digest whose facts are
// cached needs no GET.
func (r *Resolver) resolve(ctx context.Context, rn run) outcome {
	if rn.rp == nil {
		return outcome{err: &Error{Image: rn.ref.key, Host: rn.ref.host, Class: ClassRefused, Detail: "registry is not in the allowlist"}}
	}
	att := &attempt{}
	ctx = withAttempt(ctx, att)
	creds := r.creds.forImage(ctx, rn.ref.name, rn.pulls)
	var last *Error
	for _, ep := range rn.rp.endpointsOf(rn.ref.host) {
		for _, cr := range creds {
			ps, digest, err := r.fetchWith(ctx, rn, ep, cr)
			if err == nil {
				return outcome{platforms: ps, digest: digest}
			}
			class, detail := classify(err)
			last = &Error{Image: rn.ref.key, Host: ep.host, Class: class, Detail: detail}
			if class != ClassUnauthorized && class != ClassNotFound {
				// Another credential will not help; a mirror may.
				break
			}
		}
	}
	return outcome{err: last, retryAfter: att.RetryAfter()}
}

func (r *Resolver) fetchWith(ctx context.Context, rn run, ep endpoint, cr credential) ([]windows.Platform, string, error) {
	f, err := newFetcher(ep, rn.ref.path, r.tr[rn.rp], cr.auth, r.cfg.RequestTimeout)
	if err != nil {
		return nil, "", err
	}
	f.entries.limit = r.cfg.MaxIndexEntries
	digest := rn.ref.digest
	if rn.ref.isTag() {
		digest, err = f.headDigest(ctx, rn.ref.tag)
		if err != nil {
			if !headUnsupported(err) {
				return nil, "", err
			}
			// A registry that does not HEAD manifests properly: GET the
			// tag instead.
			return f.platformsOfTag(ctx, rn.ref.tag)
		}
		if ps, ok := r.cachedFacts(rn.ref.digestRef(digest).key); ok {
			return ps, digest, nil
		}
	}
	ps, err := f.platforms(ctx, digest)
	return ps, digest, err
}

// headUnsupported reports a HEAD that the registry answered, but not as
// the distribution spec says (405, a missing Docker-Content-Digest): a GET
// may still work. Errors of access, absence, rate or reachability would
// fail a GET the same way.
func headUnsupported(err error) bool {
	var terr *transport.Error
	if errors.As(err, &terr) {
		class, _ := classifyStatus(terr.StatusCode, "")
		return class == ClassInvalid
	}
	var nerr net.Error
	var refused *refusedError
	return !errors.As(err, &nerr) && !errors.As(err, &refused) &&
		!errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) &&
		!errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET)
}

func (r *Resolver) cachedFacts(key string) ([]windows.Platform, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if e, ok := r.cache.entries[key]; ok && e.res.State == StateResolved {
		return e.res.Platforms, true
	}
	return nil, false
}

// finishRun stores the outcome, then tells the waiters.
func (r *Resolver) finishRun(ctx context.Context, rn run, out outcome, took time.Duration) {
	logger := klog.FromContext(ctx)
	now := r.clock.Now()
	type notice struct {
		key     string
		waiters []string
	}
	var notices []notice

	r.mu.Lock()
	e := rn.e
	r.activeHosts[rn.ref.host]--
	if r.activeHosts[rn.ref.host] <= 0 {
		delete(r.activeHosts, rn.ref.host)
	}
	result := "resolved"
	if out.err == nil {
		r.cache.update(e, func() {
			e.inflight, e.pending = false, false
			e.res = Result{State: StateResolved, Platforms: out.platforms, Digest: out.digest}
			e.freshUntil = now.Add(r.cfg.TagTTL)
			e.retryAt, e.triedPulls, e.autoRetries = time.Time{}, nil, 0
		})
		r.backoff.Forget(e.ref.key)
		notices = append(notices, notice{e.ref.key, e.takeWaiters(false)})
		if e.ref.isTag() {
			// The digest's facts never change: keep them for digest
			// references and for the next HEAD of this tag.
			if n := r.storeDigestFacts(rn.ref.digestRef(out.digest), out); n.key != "" {
				notices = append(notices, notice(n))
			}
		}
	} else {
		result = out.err.Class.String()
		if out.err.Class == ClassRateLimited && out.retryAfter > 0 {
			r.pausedUntil[rn.ref.host] = time.Now().Add(out.retryAfter)
		}
		r.cache.update(e, func() {
			e.inflight = false
			if e.res.State == StateResolved {
				// A failed refresh: the stale facts stand, and the next
				// refresh waits for the negative TTL.
				e.freshUntil = now.Add(r.cfg.NegativeTTL)
				return
			}
			e.res = Result{State: StateFailed, Class: out.err.Class, Err: out.err}
			e.freshUntil = now.Add(r.cfg.NegativeTTL)
			e.triedPulls = map[string]bool{}
			for _, p := range rn.pulls {
				e.triedPulls[p.key()] = true
			}
		})
		retryIn := time.Duration(0)
		transient := out.err.Class == ClassUnavailable || out.err.Class == ClassRateLimited
		if transient && e.res.State == StateFailed && e.autoRetries < r.cfg.MaxAutoRetries && !e.pending {
			retryIn = max(r.backoff.When(e.ref.key), out.retryAfter)
			e.autoRetries++
			r.cache.update(e, func() { e.pending = true })
			e.retryAt = now.Add(retryIn)
			r.queue.AddAfter(e.ref.key, retryIn)
		}
		// Waiters learn of the failure now; while a retry is scheduled
		// they stay registered, to learn of its result too.
		notices = append(notices, notice{e.ref.key, e.takeWaiters(retryIn > 0)})
		logger.V(2).Info("Image platforms not resolved", "image", rn.ref.key, "class", out.err.Class, "err", out.err, "retryIn", retryIn, "duration", took)
	}
	r.metrics.resolved(result, took.Seconds())
	c := r.cache.counts
	r.metrics.entries(c[kindDigest], c[kindTag], c[kindFailed], c[kindPending])
	fn := r.resolved
	r.mu.Unlock()

	if out.err == nil {
		logger.V(2).Info("Resolved image platforms", "image", rn.ref.key, "digest", out.digest, "platforms", formatPlatforms(out.platforms), "duration", took)
	}
	if fn == nil {
		return
	}
	for _, n := range notices {
		if len(n.waiters) > 0 {
			fn(n.key, n.waiters)
		}
	}
}

// storeDigestFacts records facts under repo@digest; it returns the
// digest entry's waiters when a run of its own was pending.
func (r *Resolver) storeDigestFacts(ref imageRef, out outcome) (n struct {
	key     string
	waiters []string
}) {
	de, ok := r.cache.entries[ref.key]
	if !ok {
		de = &entry{ref: ref, res: Result{State: StateResolved, Platforms: out.platforms, Digest: out.digest}}
		r.cache.insert(de)
		return n
	}
	if de.res.State == StateResolved || de.inflight {
		return n
	}
	r.cache.update(de, func() {
		de.pending = false
		de.res = Result{State: StateResolved, Platforms: out.platforms, Digest: out.digest}
		de.retryAt, de.triedPulls, de.autoRetries = time.Time{}, nil, 0
	})
	n.key, n.waiters = ref.key, de.takeWaiters(false)
	return n
}

func formatPlatforms(ps []windows.Platform) string {
	parts := make([]string, 0, len(ps))
	for _, p := range ps {
		s := p.OS + "/" + p.Arch
		if !p.Version.IsZero() {
			s += " " + p.Version.Build.String()
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// ErrorOf returns the *Error of a failed result, or nil.
func ErrorOf(res Result) *Error {
	var e *Error
	if errors.As(res.Err, &e) {
		return e
	}
	return nil
}
