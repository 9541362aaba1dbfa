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
	"k8s.io/component-base/metrics"
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
	// MaxBytes bounds the cache's approximate size in bytes (keys,
	// aliases, error text, platforms): entries of long references or long
	// errors count for what they hold, not as one each.
	MaxBytes int
	// MaxScopedPerNamespace bounds the pull-secret-scoped entries of one
	// namespace: a tenant naming ever new secrets or images replaces its
	// own scoped entries, never fills the cache.
	MaxScopedPerNamespace int
	// MaxImagesPerPod bounds the images resolved for one pod: those of its
	// first MaxImagesPerPod containers, init containers first. The others
	// are placed as if their registry had not answered.
	MaxImagesPerPod int
	// MaxPullSecretsPerPod bounds the pull secrets read for one pod: the
	// first MaxPullSecretsPerPod names of spec.imagePullSecrets.
	MaxPullSecretsPerPod int
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
	// Clock dates cache entries and rate-limit pauses; the real clock
	// when nil. When it also runs timers (clock.WithDelayedExecution),
	// retries are scheduled on it too.
	Clock clock.PassiveClock
}

// Defaults of the Config fields left zero.
const (
	DefaultMaxEntries = 20000
	// DefaultMaxBytes is some 3 KiB per entry at DefaultMaxEntries: far
	// above what a resolved image takes, and what keeps a cache of long
	// error texts within bounds.
	DefaultMaxBytes = 64 << 20
	// DefaultMaxScopedPerNamespace leaves one namespace at most 256
	// pull-secret-scoped entries, about 1% of DefaultMaxEntries.
	DefaultMaxScopedPerNamespace = 256
	// DefaultMaxImagesPerPod is well above the containers of real pods.
	DefaultMaxImagesPerPod = 32
	// DefaultMaxPullSecretsPerPod is well above the pull secrets of real
	// pods, and bounds the Secrets one pod makes the scheduler read.
	DefaultMaxPullSecretsPerPod = 8
	DefaultTagTTL               = 10 * time.Minute
	DefaultNegativeTTL          = time.Minute
	DefaultWorkers              = 8
	DefaultPerRegistry          = 4
	DefaultRequestTimeout       = 10 * time.Second
	// DefaultMaxIndexEntries is far above real multi-platform lists (well
	// under 100 entries, attestations included).
	DefaultMaxIndexEntries = 256
	// RunTimeoutRequests is RunTimeout's default in requests: a HEAD, a
	// GET and one child read, each at its longest.
	RunTimeoutRequests = 3
)

// Resolver reads image platforms from registries in the background and
// answers from its cache. Lookup and Want never block on the network and
// may be called under the scheduler's queue lock.
type Resolver struct {
	cfg     Config
	clock   clock.PassiveClock
	policy  *egressPolicy
	creds   *credentials
	metrics *resolverMetrics
	// buildsChanged counts the tags whose Windows builds changed between
	// two resolutions (buildschange.go).
	buildsChanged metrics.CounterMetric
	// queue hands out runs a namespace at a time (fairqueue.go).
	queue    *fairQueue[entryKey]
	backoff  workqueue.TypedRateLimiter[entryKey]
	tr       map[*registryPolicy]http.RoundTripper
	resolved func(ref string, waiters []string)
	// fetch runs one resolution: resolveWithin; tests observe runs
	// through it.
	fetch func(context.Context, run) outcome

	mu    sync.RWMutex
	cache *cache
	// slots are the runs under way per registry host (hostslots.go).
	slots *hostSlots
	// pausedUntil: an endpoint that answered 429 with Retry-After is not
	// asked again before then; the registry's other endpoints are.
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
	timers, ok := clk.(clock.WithDelayedExecution)
	if !ok {
		timers = clock.RealClock{}
	}
	r := &Resolver{
		cfg:         cfg,
		clock:       clk,
		policy:      policy,
		creds:       creds,
		metrics:     newMetrics(),
		queue:       newFairQueue[entryKey](timers),
		backoff:     workqueue.NewTypedItemExponentialFailureRateLimiter[entryKey](cfg.RetryBaseDelay, cfg.RetryMaxDelay),
		tr:          map[*registryPolicy]http.RoundTripper{},
		cache:       newCache(cacheLimits{entries: cfg.MaxEntries, bytes: cfg.MaxBytes, scopedPerNamespace: cfg.MaxScopedPerNamespace}),
		slots:       newHostSlots(cfg.PerRegistry),
		pausedUntil: map[string]time.Time{},
	}
	r.fetch = r.resolveWithin
	r.buildsChanged = newBuildsChangedMetric()
	creds.onSecretChange(r.forgetSecret) // rotation.go
	for _, rp := range policy.registries {
		r.tr[rp] = policy.newGuardTransport(rp, cfg.RequestTimeout, r.metrics)
	}
	return r, nil
}

func withDefaults(cfg Config) Config {
	if cfg.MaxEntries <= 0 {
		cfg.MaxEntries = DefaultMaxEntries
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.MaxScopedPerNamespace <= 0 {
		cfg.MaxScopedPerNamespace = DefaultMaxScopedPerNamespace
	}
	if cfg.MaxImagesPerPod <= 0 {
		cfg.MaxImagesPerPod = DefaultMaxImagesPerPod
	}
	if cfg.MaxPullSecretsPerPod <= 0 {
		cfg.MaxPullSecretsPerPod = DefaultMaxPullSecretsPerPod
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
// for none, or when pull secrets are not read. Names past
// MaxPullSecretsPerPod are left out (capped).
func (r *Resolver) scopeOf(pull PullSecrets) string {
	if !r.cfg.PodPullSecrets {
		return ""
	}
	return r.capped(pull).key()
}

// capped is pull without the names past MaxPullSecretsPerPod, in the
// pod's order: they are never read. It does not allocate.
func (r *Resolver) capped(pull PullSecrets) PullSecrets {
	pull.Names = pull.Names[:min(len(pull.Names), r.cfg.MaxPullSecretsPerPod)]
	return pull
}

// MaxImagesPerPod is how many of a pod's images are resolved: those of
// its first MaxImagesPerPod containers, init containers first.
func (r *Resolver) MaxImagesPerPod() int { return r.cfg.MaxImagesPerPod }

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

// Known returns the facts of ref that a pod with the pull secrets pull
// sees (as Lookup finds them) when they are resolved and fresh: a tag's
// within tagTTL of its last read, a digest's always. It is for pods whose
// images are not resolved, which nothing refreshes facts for: facts past
// tagTTL may be of a tag pushed again since, so they are not taken. It
// counts no cache lookup, since no pod waits on its answer, and never
// asks; the entry it reads counts as used, as with Lookup. Like Lookup it
// takes a read lock, and allocates nothing for a pod without pull secrets.
func (r *Resolver) Known(ref string, pull PullSecrets) (Result, bool) {
	scope := r.scopeOf(pull)
	r.mu.RLock()
	e, ok := r.visible(ref, scope)
	if !ok || e.res.State != StateResolved || e.ref.isTag() && !r.clock.Now().Before(e.freshUntil) {
		r.mu.RUnlock()
		return Result{}, false
	}
	res := e.res
	r.mu.RUnlock()
	if !e.referenced.Load() {
		e.referenced.Store(true)
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
//
// pull.Namespace, the asking pod's namespace, is the namespace the run is
// queued for, whatever its scope: runs are taken a namespace at a time.
func (r *Resolver) Want(ref, waiter string, pull PullSecrets) bool {
	scope := r.scopeOf(pull)
	ns := pull.Namespace
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
		return r.wantLocked(own, waiter, ns)
	case sharedOK && (shared.res.State == StateResolved || shared.decided()):
		// Facts every pod may see (refreshed, when stale, with the
		// shared credentials), or a refusal no credential changes.
		return r.wantLocked(shared, "", ns)
	case scope == "":
		if !sharedOK {
			shared = r.entryFor(ref, PullSecrets{Namespace: ns})
		}
		return r.wantLocked(shared, waiter, ns)
	case !ownOK:
		if own = r.entryFor(ref, r.capped(pull)); own == nil {
			return false
		}
	}
	return r.wantLocked(own, waiter, ns)
}

// entryFor finds or creates the entry of a reference not yet aliased in
// the scope of pull; nil when the image has maxScopesPerImage scoped
// entries, or the namespace MaxScopedPerNamespace, all pinned.
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
	if scope != "" && !r.cache.roomForScope(ir.key, pull.Namespace) {
		return nil
	}
	e := &entry{ref: ir, scope: scope, namespace: pull.Namespace}
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

// wantLocked registers waiter on e and queues a run of it, when one is
// due, for namespace ns. The caller holds r.mu.
func (r *Resolver) wantLocked(e *entry, waiter, ns string) bool {
	now := r.clock.Now()
	switch {
	case e.res.State == StateResolved:
		// Known facts are never waited for; stale ones are refreshed in
		// the background while they are served.
		if e.ref.isTag() && !now.Before(e.freshUntil) && !e.pending && !e.inflight {
			r.enqueue(e, now, ns)
		}
		return false
	case e.decided():
		return false
	case e.res.State == StateFailed && !e.inflight && now.Before(e.freshUntil):
		// Failed recently with this scope's credentials. A scheduled
		// retry still reports to the waiter, who does not wait for it
		// meanwhile.
		if !e.retryAt.IsZero() {
			r.cache.update(e, func() { e.addWaiter(waiter) })
		}
		return false
	case e.pending || e.inflight:
		r.cache.update(e, func() { e.addWaiter(waiter) })
		return true
	}
	r.cache.update(e, func() { e.addWaiter(waiter) })
	r.enqueue(e, now, ns)
	return true
}

// enqueue queues a run of e for namespace ns: the namespace of the pod
// that asked for it, which the run's place in the queue is fair to.
func (r *Resolver) enqueue(e *entry, now time.Time, ns string) {
	r.cache.update(e, func() {
		if !e.pending {
			e.requested = now
			e.namespace = ns
		}
		e.pending = true
		e.retryAt = time.Time{}
	})
	r.queue.Add(e.key(), e.namespace)
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
	start := r.clock.Now()
	out := r.fetch(ctx, rn)
	r.finishRun(ctx, rn, out, r.clock.Since(start))
}

// startRun claims the entry for a run, unless it needs none, or every
// endpoint of its registry is paused (then it is put back until the first
// pause ends), or its registry is at its concurrency limit (then it is
// parked until a slot is handed to it).
func (r *Resolver) startRun(key entryKey) (run, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.cache.entries[key]
	if !ok || !e.pending || e.inflight {
		if host, granted := r.slots.cancelGrant(key); granted {
			r.releaseSlot(host)
		}
		return run{}, false
	}
	rp := r.policy.registryFor(e.ref.host)
	if wait := r.pausedFor(rp, e.ref.host); wait > 0 {
		if host, granted := r.slots.cancelGrant(key); granted {
			r.releaseSlot(host)
		}
		r.queue.AddAfter(key, e.namespace, wait)
		return run{}, false
	}
	if !r.slots.take(e.ref.host, key, e.namespace) {
		return run{}, false
	}
	r.cache.update(e, func() { e.pending, e.inflight = false, true })
	return run{e: e, ref: e.ref, rp: rp, pull: e.pull}, true
}

// releaseSlot gives back a run's slot of host; the resolution it is
// handed to, if one was parked, is queued. The caller holds r.mu.
func (r *Resolver) releaseSlot(host string) {
	if next, ok := r.slots.release(host); ok {
		r.queue.Add(next.key, next.namespace)
	}
}

// pausedFor is how long every endpoint of an image of host stays paused
// after a 429: 0 when one may be asked now. The caller holds r.mu.
func (r *Resolver) pausedFor(rp *registryPolicy, host string) time.Duration {
	if rp == nil || len(r.pausedUntil) == 0 {
		return 0
	}
	now := r.clock.Now()
	var wait time.Duration
	for _, ep := range rp.endpointsOf(host) {
		until, ok := r.pausedUntil[ep.host]
		if !ok || !now.Before(until) {
			return 0
		}
		if d := until.Sub(now); wait == 0 || d < wait {
			wait = d
		}
	}
	return wait
}

// endpointPaused reports whether ep answered 429 and its Retry-After has
// not passed, forgetting a pause that has.
func (r *Resolver) endpointPaused(ep endpoint) (time.Duration, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	until, ok := r.pausedUntil[ep.host]
	if !ok {
		return 0, false
	}
	if now := r.clock.Now(); now.Before(until) {
		return until.Sub(now), true
	}
	delete(r.pausedUntil, ep.host)
	return 0, false
}

// pauseEndpoint records a 429's Retry-After for ep, keeping the later
// end of two pauses.
func (r *Resolver) pauseEndpoint(ep endpoint, retryAfter time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	until := r.clock.Now().Add(retryAfter)
	if until.After(r.pausedUntil[ep.host]) {
		r.pausedUntil[ep.host] = until
	}
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
	creds := r.creds.forImage(ctx, rn.ref.name, rn.pull)
	var (
		last       *Error
		retryAfter time.Duration
	)
	for _, ep := range rn.rp.endpointsOf(rn.ref.host) {
		if wait, paused := r.endpointPaused(ep); paused {
			// It answered 429 lately: not asked before its Retry-After;
			// the next endpoint may be.
			last = &Error{Image: rn.ref.key, Host: ep.host, Class: ClassRateLimited, Detail: "registry rate limit reached (waiting for its Retry-After)"}
			retryAfter = max(retryAfter, wait)
			continue
		}
		att := &attempt{}
		epCtx := withAttempt(ctx, att)
		for _, cr := range creds {
			ps, digest, err := r.fetchWith(epCtx, rn, ep, cr)
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
		if d := att.RetryAfter(); d > 0 && last != nil && last.Class == ClassRateLimited {
			// This endpoint is paused, not the registry: another mirror,
			// or another registry's, is asked meanwhile.
			r.pauseEndpoint(ep, d)
			retryAfter = max(retryAfter, d)
		}
	}
	return outcome{err: last, retryAfter: retryAfter}
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
	r.releaseSlot(rn.ref.host)
	result := "resolved"
	var changed *BuildsChange // a change this run found, logged once unlocked
	if out.err == nil {
		fresh := out.resolved()
		if e.ref.isTag() && e.res.State == StateResolved {
			// A refresh: the facts it replaces are the tag's last read.
			fresh.Changed = buildsChange(e.res, fresh)
			if fresh.Changed != nil && fresh.Changed != e.res.Changed {
				changed = fresh.Changed
				r.buildsChanged.Inc()
			}
		}
		r.cache.update(e, func() {
			e.inflight, e.pending = false, false
			e.res = fresh
			e.freshUntil = now.Add(r.cfg.TagTTL)
			e.retryAt, e.autoRetries = time.Time{}, 0
		})
		r.backoff.Forget(e.key())
		res := e.res
		notices = append(notices, notice{e.ref.key, r.takeWaiters(e, false)})
		scope := r.factsScope(rn, out.shared)
		if scope != e.scope {
			// A pull-secret scope's run that needed no pull secret: the
			// facts are everyone's, kept once, in the shared entry.
			if n := r.storeFacts(rn.ref, "", rn.pull, res, now); len(n.waiters) > 0 {
				notices = append(notices, n)
			}
			if se, ok := r.cache.entries[entryKey{e.ref.key, ""}]; ok && se.res.State == StateResolved && !e.pinned() {
				r.cache.remove(e)
			}
		}
		if e.ref.isTag() {
			// The digest's facts never change: keep them, in the same
			// scope, for digest references and for the next HEAD of this
			// tag, without the tag's BuildsChange.
			digestRes := res
			digestRes.Changed = nil
			if n := r.storeFacts(rn.ref.digestRef(out.digest), scope, rn.pull, digestRes, now); len(n.waiters) > 0 {
				notices = append(notices, n)
			}
		}
	} else {
		result = out.err.Class.String()
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
			r.queue.AddAfter(e.key(), e.namespace, retryIn)
		}
		// Waiters learn of the failure now; while a retry is scheduled
		// they stay registered, to learn of its result too.
		notices = append(notices, notice{e.ref.key, r.takeWaiters(e, retryIn > 0)})
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
	if changed != nil {
		logger.Info("A tag's Windows builds changed since it was last read", "image", rn.ref.key, "oldBuilds", changed.Old, "builds", changed.New,
			"oldDigest", changed.OldDigest, "digest", changed.Digest)
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

// takeWaiters empties e's waiters, unless keep, and returns them. The
// caller holds r.mu.
func (r *Resolver) takeWaiters(e *entry, keep bool) []string {
	var waiters []string
	r.cache.update(e, func() { waiters = e.takeWaiters(keep) })
	return waiters
}

// storeFacts records a run's facts under ref (the tag's repo@digest, or
// the tag itself in the shared scope) in scope, creating the entry or
// completing one that has no facts yet; it returns that entry's waiters.
// pull is the run's credential set, whose namespace a scoped entry counts
// against. The caller holds r.mu.
func (r *Resolver) storeFacts(ref imageRef, scope string, pull PullSecrets, res Result, now time.Time) notice {
	de, ok := r.cache.entries[entryKey{ref.key, scope}]
	if !ok {
		de = &entry{ref: ref, scope: scope, res: res, freshUntil: now.Add(r.cfg.TagTTL), namespace: pull.Namespace}
		if scope != "" {
			if !r.cache.roomForScope(ref.key, pull.Namespace) {
				return notice{}
			}
			de.pull = PullSecrets{Namespace: pull.Namespace, Names: slices.Clone(pull.Names)}
		}
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
	return notice{ref.key, r.takeWaiters(de, false)}
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
