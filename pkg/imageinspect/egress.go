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
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Size caps of what the resolver reads: distribution's own limit for
// manifests, and a generous one for image configs (a config is a few KiB;
// its history may grow it).
const (
	maxManifestBytes = 4 << 20
	maxConfigBytes   = 8 << 20
	// maxRetryAfter bounds how long a registry's Retry-After may pause it.
	maxRetryAfter = 15 * time.Minute
	// maxRedirects bounds the redirects one request follows: a registry
	// sends a blob or manifest to its storage in one or two.
	maxRedirects = 5
	// maxResponseHeaderBytes bounds the headers of an answer, which the
	// HTTP client otherwise reads up to 10 MiB: a registry's headers are a
	// few hundred bytes (a token service's cookies a few KiB).
	maxResponseHeaderBytes = 64 << 10
)

// forbiddenV4 and forbiddenV6 are the ranges a registry reference must not
// make the scheduler dial: the host itself, private and link-local
// networks, cloud metadata and host endpoints, and every other block of
// IANA's IPv4 and IPv6 Special-Purpose Address Registries that is not
// globally reachable (a few blocks marked reachable are refused whole,
// where no registry would live: 192.0.0.0/24, 2001::/23).
var (
	forbiddenV4 = mustPrefixes(
		"0.0.0.0/8",        // "this network": 0.x.y.z dials the local host on Linux
		"10.0.0.0/8",       // private (RFC 1918)
		"100.64.0.0/10",    // shared address space (RFC 6598); Alibaba Cloud's metadata is 100.100.100.200
		"127.0.0.0/8",      // loopback
		"168.63.129.16/32", // Azure's host endpoint (DNS, health probes, the VM agent's wire server)
		"169.254.0.0/16",   // link-local: 169.254.169.254 is the metadata service of AWS, GCP, Azure and others
		"172.16.0.0/12",    // private
		"192.0.0.0/24",     // IETF protocol assignments; Oracle Cloud's metadata is 192.0.0.192
		"192.0.2.0/24",     // documentation (TEST-NET-1)
		"192.88.99.0/24",   // deprecated 6to4 relay anycast
		"192.168.0.0/16",   // private
		"198.18.0.0/15",    // benchmarking
		"198.51.100.0/24",  // documentation (TEST-NET-2)
		"203.0.113.0/24",   // documentation (TEST-NET-3)
		"224.0.0.0/4",      // multicast
		"240.0.0.0/4",      // reserved, and 255.255.255.255, limited broadcast
	)
	forbiddenV6 = mustPrefixes(
		"::/96",           // unspecified, loopback, and the deprecated IPv4-compatible forms
		"::ffff:0:0:0/96", // IPv4-translated (RFC 2765)
		"64:ff9b:1::/48",  // local-use IPv4/IPv6 translation (RFC 8215)
		"100::/64",        // discard-only
		"100:0:0:1::/64",  // dummy prefix (RFC 9780)
		"2001::/23",       // IETF protocol assignments, Teredo among them
		"2001:db8::/32",   // documentation
		"2002::/16",       // 6to4: embeds an IPv4 address a relay would reach
		"3fff::/20",       // documentation (RFC 9637)
		"5f00::/16",       // segment routing SIDs
		"fc00::/7",        // unique local; AWS's IPv6 metadata is fd00:ec2::254
		"fe80::/10",       // link-local
		"fec0::/10",       // deprecated site-local
		"ff00::/8",        // multicast
	)
	// NAT64's well-known prefix (RFC 6052) is globally reachable, but a
	// translator turns it into the IPv4 address in its last 32 bits,
	// which must pass the IPv4 test.
	nat64 = netip.MustParsePrefix("64:ff9b::/96")
)

func mustPrefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// forbiddenAddr reports whether ip reaches the host itself, a private
// network or any other address that is not globally reachable: what a
// registry reference must not make the scheduler dial. IPv4-mapped and
// NAT64 forms are judged by the IPv4 address they carry.
func forbiddenAddr(ip netip.Addr) bool {
	if !ip.IsValid() {
		return true
	}
	// A zone (fe80::1%eth0) never matches a prefix: judge the address.
	ip = ip.WithZone("").Unmap()
	if nat64.Contains(ip) {
		b := ip.As16()
		ip = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	ranges := forbiddenV6
	if ip.Is4() {
		ranges = forbiddenV4
	}
	for _, p := range ranges {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// guardedDialer dials only public addresses, unless exempt and the host
// being dialled is allowlisted for private ones. The check runs in Control,
// on the address the dialer is about to connect to: after DNS, so a name
// that resolves to 127.0.0.1 or 169.254.169.254 is refused, and with no
// window between check and connect for DNS rebinding.
func (p *egressPolicy) guardedDialer(base *net.Dialer, exempt bool) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if exempt && p.allowsPrivate(addr) {
			return base.DialContext(ctx, network, addr)
		}
		d := *base
		d.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return &refusedError{reason: "cannot check address " + address}
			}
			if forbiddenAddr(ap.Addr()) {
				return &refusedError{reason: addr + " resolves to private address " + ap.Addr().String()}
			}
			return nil
		}
		return d.DialContext(ctx, network, addr)
	}
}

// newGuardTransport is the transport of one registry's requests.
func (p *egressPolicy) newGuardTransport(r *registryPolicy, requestTimeout time.Duration, metrics *resolverMetrics) *guardTransport {
	return &guardTransport{
		policy:  p,
		inner:   p.newHTTPTransport(r, requestTimeout, true),
		strict:  p.newHTTPTransport(r, requestTimeout, false),
		metrics: metrics,
	}
}

// newHTTPTransport is the transport of one registry: the guarded dialer
// (exempt: private addresses of hosts allowlisted for them are dialled),
// the registry's TLS roots, no proxy from the environment (a proxy would
// dial on our behalf, past the guard), bounded response header wait and
// size.
func (p *egressPolicy) newHTTPTransport(r *registryPolicy, requestTimeout time.Duration, exempt bool) *http.Transport {
	return &http.Transport{
		Proxy:                  nil,
		DialContext:            p.guardedDialer(&net.Dialer{Timeout: requestTimeout, KeepAlive: 30 * time.Second}, exempt),
		TLSClientConfig:        r.tlsConfig.Clone(),
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           32,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    requestTimeout,
		ResponseHeaderTimeout:  requestTimeout,
		MaxResponseHeaderBytes: maxResponseHeaderBytes,
	}
}

// guardTransport sits under the registry client: every request it sends,
// each redirect hop and token requests included, passes the egress checks;
// every answer is counted, size-capped, and a 429's Retry-After is kept for
// the resolver.
type guardTransport struct {
	policy *egressPolicy
	inner  http.RoundTripper
	// strict carries the requests to any host but the run's endpoint
	// (redirect hops to another host, token services): its dialer refuses
	// every address that is not globally reachable, whatever the
	// allowlist says, so that a registry cannot send the scheduler to
	// the host, the cloud's metadata or a private registry.
	strict  http.RoundTripper
	metrics *resolverMetrics
}

// forEndpoint is the transport of the requests a run sends to one
// endpoint: the registry host, or the mirror, the run started from, as
// the requests spell it (host[:port]). Only requests to that endpoint may
// reach a private address, when the allowlist allows it.
func (t *guardTransport) forEndpoint(endpoint string) http.RoundTripper {
	return endpointTransport{guard: t, endpoint: endpoint}
}

type endpointTransport struct {
	guard    *guardTransport
	endpoint string
}

func (e endpointTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return e.guard.roundTrip(req, e.endpoint)
}

// RoundTrip sends a request of no known endpoint: every host is held to
// public addresses.
func (t *guardTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return t.roundTrip(req, "")
}

func (t *guardTransport) roundTrip(req *http.Request, endpoint string) (*http.Response, error) {
	inner := t.inner
	var err error
	origin, hops := redirectChain(req)
	onEndpoint := endpoint != "" && canonicalHostPort(req.URL.Host) == canonicalHostPort(endpoint)
	switch {
	case hops > maxRedirects:
		err = &refusedError{reason: fmt.Sprintf("more than %d redirects from %s", maxRedirects, origin.URL.Host)}
	case hops > 0 && !sameHost(origin.URL, req.URL):
		err = t.checkHop(req, origin)
		inner = t.strict
	case !onEndpoint:
		// Not a redirect: the registry client asks another host on its
		// own only for a token, at the realm the registry's challenge
		// names (and which any registry may name).
		err = t.checkTokenService(req, endpoint)
		inner = t.strict
	default:
		err = t.check(req)
	}
	if err != nil {
		t.metrics.request(req.Method, "refused")
		return nil, err
	}
	resp, err := inner.RoundTrip(req)
	if err != nil {
		t.metrics.request(req.Method, "error")
		var refused *refusedError
		if !onEndpoint && hops == 0 && errors.As(err, &refused) {
			return nil, &refusedError{reason: tokenServiceRefusal(req, endpoint, refused.reason)}
		}
		return nil, err
	}
	t.metrics.request(req.Method, strconv.Itoa(resp.StatusCode))
	if resp.StatusCode == http.StatusTooManyRequests {
		if a := attemptFrom(req.Context()); a != nil {
			a.noteRetryAfter(parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()))
		}
	}
	limit := int64(maxConfigBytes)
	if strings.Contains(req.URL.Path, "/manifests/") {
		limit = maxManifestBytes
	}
	if resp.ContentLength > limit {
		resp.Body.Close()
		return nil, &tooLargeError{what: req.URL.Path, limit: limit}
	}
	resp.Body = &cappedBody{ReadCloser: resp.Body, remaining: limit, what: req.URL.Path, limit: limit}
	return resp, nil
}

func (t *guardTransport) check(req *http.Request) error {
	switch req.URL.Scheme {
	case "https":
	case "http":
		if !t.policy.allowsPlainHTTP(req.URL.Host) {
			return &refusedError{reason: "plain HTTP to " + req.URL.Host + " is not allowed (registry not insecure)", plainHTTP: true}
		}
	default:
		return &refusedError{reason: "scheme " + req.URL.Scheme + " is not allowed"}
	}
	// An IP literal is refused before any dial; names are checked by the
	// dialer once resolved.
	if ip, err := netip.ParseAddr(strings.Trim(req.URL.Hostname(), "[]")); err == nil && forbiddenAddr(ip) && !t.policy.allowsPrivate(req.URL.Host) {
		return &refusedError{reason: req.URL.Host + " is a private address"}
	}
	return nil
}

// redirectChain returns the request a redirect hop started from and the
// number of hops so far: the HTTP client links each hop to the answer that
// caused it, and that answer to its request.
func redirectChain(req *http.Request) (origin *http.Request, hops int) {
	origin = req
	for origin.Response != nil && origin.Response.Request != nil && hops <= maxRedirects {
		origin = origin.Response.Request
		hops++
	}
	return origin, hops
}

// sameHost reports whether two URLs name the same host and port.
func sameHost(a, b *url.URL) bool {
	return canonicalHostPort(a.Host) == canonicalHostPort(b.Host)
}

// checkHop checks a redirect to another host than the request's first:
// blob storage (a CDN) or a token server's new home, not allowlisted as a
// registry and not asked to be. HTTPS, unless the registry asked first is
// insecure; a name, never an address (a registry has no reason to send a
// client to an address, and an address skips the name's certificate
// check); and, by the strict dialer, a name that resolves to a globally
// reachable address only.
func (t *guardTransport) checkHop(req, origin *http.Request) error {
	switch req.URL.Scheme {
	case "https":
	case "http":
		if !t.policy.allowsPlainHTTP(origin.URL.Host) {
			return &refusedError{reason: "redirect from " + origin.URL.Host + " to plain HTTP " + req.URL.Host + " is not allowed (registry not insecure)"}
		}
	default:
		return &refusedError{reason: "redirect from " + origin.URL.Host + " to scheme " + req.URL.Scheme + " is not allowed"}
	}
	if _, err := netip.ParseAddr(strings.Trim(req.URL.Hostname(), "[]")); err == nil {
		return &refusedError{reason: "redirect from " + origin.URL.Host + " to address " + req.URL.Host + " is not allowed"}
	}
	return nil
}

// checkTokenService checks a request to another host than the run's
// endpoint that is not a redirect: a token service. HTTPS, unless the
// endpoint is insecure (the registry client asks plain HTTP realms only of
// a registry it pinged over plain HTTP); never a private address literal;
// and, by the strict dialer, a name that resolves to a globally reachable
// address only.
func (t *guardTransport) checkTokenService(req *http.Request, endpoint string) error {
	switch req.URL.Scheme {
	case "https":
	case "http":
		if endpoint == "" || !t.policy.allowsPlainHTTP(endpoint) {
			return &refusedError{reason: tokenServiceRefusal(req, endpoint, "plain HTTP is not allowed (registry not insecure)")}
		}
	default:
		return &refusedError{reason: tokenServiceRefusal(req, endpoint, "scheme "+req.URL.Scheme+" is not allowed")}
	}
	if ip, err := netip.ParseAddr(strings.Trim(req.URL.Hostname(), "[]")); err == nil && forbiddenAddr(ip) {
		return &refusedError{reason: tokenServiceRefusal(req, endpoint, "it is a private address")}
	}
	return nil
}

// tokenServiceRefusal says why a request to a token service was refused,
// and that the private addresses of the registry's own endpoint do not
// extend to it.
func tokenServiceRefusal(req *http.Request, endpoint, why string) string {
	if endpoint == "" {
		endpoint = "unknown"
	}
	return "token service " + req.URL.Host + " (not the registry endpoint " + endpoint + ", so only a public address is allowed): " + why
}

// parseRetryAfter reads delay-seconds or an HTTP-date, capped.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0
		}
		if secs > int64(maxRetryAfter/time.Second) {
			return maxRetryAfter
		}
		d = time.Duration(secs) * time.Second
	} else if at, err := http.ParseTime(v); err == nil {
		d = at.Sub(now)
	}
	return min(max(d, 0), maxRetryAfter)
}

// tooLargeError is an answer over the size cap.
type tooLargeError struct {
	what  string
	limit int64
}

func (e *tooLargeError) Error() string {
	kind := "config"
	if strings.Contains(e.what, "/manifests/") {
		kind = "manifest"
	}
	return kind + " larger than " + strconv.FormatInt(e.limit>>20, 10) + " MiB"
}

type cappedBody struct {
	io.ReadCloser
	remaining int64
	what      string
	limit     int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.remaining <= 0 {
		// One byte more than allowed tells "exactly at the cap" from "over".
		var one [1]byte
		if n, _ := b.ReadCloser.Read(one[:]); n > 0 {
			return 0, &tooLargeError{what: b.what, limit: b.limit}
		}
		return 0, io.EOF
	}
	if int64(len(p)) > b.remaining {
		p = p[:b.remaining]
	}
	n, err := b.ReadCloser.Read(p)
	b.remaining -= int64(n)
	return n, err
}

// attempt collects what the transport learns during one resolution.
type attempt struct {
	mu         sync.Mutex
	retryAfter time.Duration
}

type attemptKey struct{}

func withAttempt(ctx context.Context, a *attempt) context.Context {
	return context.WithValue(ctx, attemptKey{}, a)
}

func attemptFrom(ctx context.Context) *attempt {
	a, _ := ctx.Value(attemptKey{}).(*attempt)
	return a
}

func (a *attempt) noteRetryAfter(d time.Duration) {
	a.mu.Lock()
	a.retryAfter = max(a.retryAfter, d)
	a.mu.Unlock()
}

func (a *attempt) RetryAfter() time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.retryAfter
}
