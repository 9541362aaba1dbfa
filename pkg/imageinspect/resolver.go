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
	"slices"
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
	queue    workqueue.TypedRateLimitingInterface[entryKey]
	backoff  workqueue.TypedRateLimiter[entryKey]
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
		backoff:     workqueue.NewTypedItemExponentialFailureRateLimiter[entryKey](cfg.RetryBaseDelay, cfg.RetryMaxDelay),
		tr:          map[*registryPolicy]http.RoundTripper{},
		cache:       newCache(cfg.MaxEntries),
		activeHosts: map[string]int{},
		pausedUntil: map[string]time.Time{},
	}
	// The queue only orders and deduplicates keys; delays are chosen by
	// the resolver (backoff, Retry-After), so its own limiter never waits.
	r.queue = workqueue.NewTypedRateLimitingQueueWithConfig[entryKey](
		workqueue.NewTypedItemExponentialFailureRateLimiter[entryKey](0, 0),
		workqueue.TypedRateLimitingQueueConfig[entryKey]{Name: "windows_aware_image_resolution"})
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

// scopeOf is the credential scope of a pod's pull secrets: "" (shared)
// for none, or when pull secrets are not read.
func (r *Resolver) scopeOf(pull PullSecrets) string {
	if !r.cfg.PodPullSecrets {
		return ""
	}
	return pull.key()
}

// Lookup returns what the resolver knows of ref, spelt as the pod spells
// it, for a pod with the pull secrets pull, and whether it knows anything.
// The pod sees the facts its own pull secrets obtained, else the shared
// ones (obtained anonymously or with the static docker config), never
// another scope's. It takes a read lock and one or two map lookups: no
// I/O, and no allocation for a pod without pull secrets. ref is known
// once Want has been called for it.
func (r *Resolver) Lookup(ref string, pull PullSecrets) (Result, bool) {
	scope := r.scopeOf(pull)
	r.mu.RLock()
	e, ok := r.visible(ref, scope)
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

// visible is the entry of ref that a pod of scope sees: its own scope's
// when resolved, else the shared one when resolved, else whichever exists
// (its own first). The caller holds r.mu.
func (r *Resolver) visible(ref, scope string) (*entry, bool) {
	shared, sharedOK := r.cache.aliases[entryKey{ref, ""}]
	if scope == "" {
		return shared, sharedOK
	}
	own, ownOK := r.cache.aliases[entryKey{ref, scope}]
	switch {
	case ownOK && own.res.State == StateResolved:
		return own, true
	case sharedOK && shared.res.State == StateResolved:
		return shared, true
	case ownOK:
		return own, true
	}
	return shared, sharedOK
}

// Want asks for ref to be resolved, with the pod's pull secrets, and
// registers waiter (e.g. the pod's namespace/name; "" for none) to be
// passed to OnResolved when the run ends. It never blocks on I/O.
//
// It returns true when a run is queued or going on that will report to
// waiter: the caller may hold its pod until then. It returns false when
// there is nothing to wait for: the facts are known (stale tag facts are
// refreshed in the background meanwhile), or the image failed recently
// with these credentials, or resolution is refused for it, or the image
// has as many pull-secret scopes under way as it may have.
//
// A run uses the credentials of one scope only: a pod with pull secrets
// is resolved with its own (then the static config's, then anonymous),
// never with another pod's; a pod without is resolved with the static
// config's or anonymously.
func (r *Resolver) Want(ref, waiter string, pull PullSecrets) bool {
	scope := r.scopeOf(pull)
	r.mu.Lock()
	defer r.mu.Unlock()
	shared, sharedOK := r.cache.aliases[entryKey{ref, ""}]
	var own *entry
	ownOK := false
	if scope != "" {
		own, ownOK = r.cache.aliases[entryKey{ref, scope}]
	}
	switch {
	case ownOK && own.res.State == StateResolved:
		return r.wantLocked(own, waiter)
	case sharedOK && (shared.res.State == StateResolved || shared.decided()):
		// Facts every pod may see (refreshed, when stale, with the
		// shared credentials), or a refusal no credential changes.
		return r.wantLocked(shared, "")
	case scope == "":
		if !sharedOK {
			shared = r.entryFor(ref, PullSecrets{})
		}
		return r.wantLocked(shared, waiter)
	case !ownOK:
		if own = r.entryFor(ref, pull); own == nil {
			return false
		}
	}
	return r.wantLocked(own, waiter)
}

// entryFor finds or creates the entry of a reference not yet aliased in
// the scope of pull; nil when the image has maxScopesPerImage scoped
// entries, all pinned.
func (r *Resolver) entryFor(ref string, pull PullSecrets) *entry {
	scope := r.scopeOf(pull)
	ir, err := parseRef(ref)
	if err != nil {
		ir = imageRef{key: ref}
	}
	if e, ok := r.cache.entries[entryKey{ir.key, scope}]; ok {
		r.cache.addAlias(e, ref)
		return e
	}
	if scope != "" && !r.cache.roomForScope(ir.key) {
		return nil
	}
	e := &entry{ref: ir, scope: scope}
	if scope != "" {
		e.pull = PullSecrets{Namespace: pull.Namespace, Names: slices.Clone(pull.Names)}
	}
	switch {
	case err != nil:
		e.res = r.failure(ref, "", err)
	case r.policy.registryFor(ir.host) == nil:
		e.res = r.failure(ref, ir.host, &refusedError{reason: "registry is not in the allowlist"})
	}
	if e.res.State == StateFailed {
		// Config decides these; no retry will change them.
		e.freshUntil = r.clock.Now().Add(100 * 365 * 24 * time.Hour)
	}
	r.cache.insert(e)
	r.cache.addAlias(e, ref)
	return e
}

func (r *Resolver) failure(image, host string, err error) Result {
	class, detail := classify(err)
	return Result{State: StateFailed, Class: class, Err: &Error{Image: image, Host: host, Class: class, Detail: detail}}
}

// decided reports a failure that the configuration decides (a registry
// not allowlisted, a reference that does not parse): no credentials and no
// retry change it.
func (e *entry) decided() bool {
	return e.res.State == StateFailed && (e.res.Class == ClassRefused || e.res.Class == ClassInvalid && e.ref.name == "")
}

func (r *Resolver) wantLocked(e *entry, waiter string) bool {
	now := r.clock.Now()
	switch {
	case e.res.State == StateResolved:
		// Known facts are never waited for; stale ones are refreshed in
		// the background while they are served.
		if e.ref.isTag() && !now.Before(e.freshUntil) && !e.pending && !e.inflight {
			r.enqueue(e, now)
		}
		return false
	case e.decided():
		return false
	case e.res.State == StateFailed && !e.inflight && now.Before(e.freshUntil):
		// Failed recently with this scope's credentials. A scheduled
		// retry still reports to the waiter, who does not wait for it
		// meanwhile.
		if !e.retryAt.IsZero() {
			e.addWaiter(waiter)
		}
		return false
	case e.pending || e.inflight:
		e.addWaiter(waiter)
		return true
	}
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
	r.queue.Add(e.key())
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
	e    *entry
	ref  imageRef
	rp   *registryPolicy
	pull PullSecrets
}

func (r *Resolver) process(ctx context.Context, key entryKey) {
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
func (r *Resolver) startRun(key entryKey) (run, bool) {
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
	return run{e: e, ref: e.ref, rp: r.policy.registryFor(e.ref.host), pull: e.pull}, true
}

// outcome is what one run learnt.
type outcome struct {
	platforms  []windows.Platform
	digest     string
	err        *Error
	retryAfter time.Duration
	// shared: the facts were obtained anonymously or with the static
	// docker config, and every pod may see them.
	shared bool
}

// resolved is the Result of a run that learnt the image's platforms.
func (o outcome) resolved() Result {
	return Result{State: StateResolved, Platforms: o.platforms, Summary: windows.Summarize(o.platforms), Digest: o.digest}
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
	creds := r.creds.forImage(ctx, rn.ref.name, rn.pull)
	var last *Error
	for _, ep := range rn.rp.endpointsOf(rn.ref.host) {
		for _, cr := range creds {
			ps, digest, err := r.fetchWith(ctx, rn, ep, cr)
			if err == nil {
				return outcome{platforms: ps, digest: digest, shared: cr.shared}
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
		if ps, ok := r.cachedFacts(rn.ref.digestRef(digest).key, r.factsScope(rn, cr.shared)); ok {
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

// factsScope is the scope that facts a run obtained with a credential
// belong to: the shared one for anonymous and static credentials, else
// the run's own.
func (r *Resolver) factsScope(rn run, shared bool) string {
	if shared {
		return ""
	}
	return rn.e.scope
}

// cachedFacts returns the digest's facts that scope may see: its own,
// else the shared ones. A run that authenticated with shared credentials
// asks with scope "": it never reads, and so never republishes as shared,
// the facts of a pull-secret scope.
func (r *Resolver) cachedFacts(key, scope string) ([]windows.Platform, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if scope != "" {
		if e, ok := r.cache.entries[entryKey{key, scope}]; ok && e.res.State == StateResolved {
			return e.res.Platforms, true
		}
	}
	if e, ok := r.cache.entries[entryKey{key, ""}]; ok && e.res.State == StateResolved {
		return e.res.Platforms, true
	}
	return nil, false
}

// finishRun stores the outcome, then tells the waiters.
func (r *Resolver) finishRun(ctx context.Context, rn run, out outcome, took time.Duration) {
	logger := klog.FromContext(ctx)
	now := r.clock.Now()
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
			e.res = out.resolved()
			e.freshUntil = now.Add(r.cfg.TagTTL)
			e.retryAt, e.autoRetries = time.Time{}, 0
		})
		r.backoff.Forget(e.key())
		notices = append(notices, notice{e.ref.key, e.takeWaiters(false)})
		scope := r.factsScope(rn, out.shared)
		if scope != e.scope {
			// A pull-secret scope's run that needed no pull secret: the
			// facts are everyone's, kept once, in the shared entry.
			if n := r.storeFacts(rn.ref, "", e.res, now); len(n.waiters) > 0 {
				notices = append(notices, n)
			}
			if se, ok := r.cache.entries[entryKey{e.ref.key, ""}]; ok && se.res.State == StateResolved && !e.pinned() {
				r.cache.remove(e)
			}
		}
		if e.ref.isTag() {
			// The digest's facts never change: keep them, in the same
			// scope, for digest references and for the next HEAD of this
			// tag.
			if n := r.storeFacts(rn.ref.digestRef(out.digest), scope, e.res, now); len(n.waiters) > 0 {
				notices = append(notices, n)
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
		})
		retryIn := time.Duration(0)
		transient := out.err.Class == ClassUnavailable || out.err.Class == ClassRateLimited
		if transient && e.res.State == StateFailed && e.autoRetries < r.cfg.MaxAutoRetries && !e.pending {
			retryIn = max(r.backoff.When(e.key()), out.retryAfter)
			e.autoRetries++
			r.cache.update(e, func() { e.pending = true })
			e.retryAt = now.Add(retryIn)
			r.queue.AddAfter(e.key(), retryIn)
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

// notice is what OnResolved is told of one entry.
type notice struct {
	key     string
	waiters []string
}

// storeFacts records a run's facts under ref (the tag's repo@digest, or
// the tag itself in the shared scope) in scope, creating the entry or
// completing one that has no facts yet; it returns that entry's waiters.
// The caller holds r.mu.
func (r *Resolver) storeFacts(ref imageRef, scope string, res Result, now time.Time) notice {
	de, ok := r.cache.entries[entryKey{ref.key, scope}]
	if !ok {
		if scope != "" && !r.cache.roomForScope(ref.key) {
			return notice{}
		}
		de = &entry{ref: ref, scope: scope, res: res, freshUntil: now.Add(r.cfg.TagTTL)}
		r.cache.insert(de)
		return notice{}
	}
	if de.res.State == StateResolved || de.inflight {
		return notice{}
	}
	r.cache.update(de, func() {
		de.pending = false
		de.res = res
		de.freshUntil = now.Add(r.cfg.TagTTL)
		de.retryAt, de.autoRetries = time.Time{}, 0
	})
	return notice{ref.key, de.takeWaiters(false)}
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
