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
	"io"
	"net"
	"net/http"
	"net/netip"
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
)

// Prefixes of address ranges that are not "private" to netip but reach
// inside a provider's network all the same.
var (
	// Shared address space (RFC 6598); Alibaba Cloud serves instance
	// metadata at 100.100.100.200.
	sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10")
	// "This network" (RFC 791): 0.x.y.z dials the local host on Linux.
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")
	// NAT64 (RFC 6052) embeds an IPv4 address that must pass the same test.
	nat64 = netip.MustParsePrefix("64:ff9b::/96")
)

// forbiddenAddr reports whether ip reaches the host itself or a private
// network: what a registry reference must not make the scheduler dial.
func forbiddenAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	if nat64.Contains(ip) {
		b := ip.As16()
		return forbiddenAddr(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
	}
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() ||
		sharedAddressSpace.Contains(ip) || thisNetwork.Contains(ip)
}

// guardedDialer dials only public addresses, unless the host being dialled
// is allowlisted for private ones. The check runs in Control, on the
// address the dialer is about to connect to: after DNS, so a name that
// resolves to 127.0.0.1 or 169.254.169.254 is refused, and with no window
// between check and connect for DNS rebinding.
func (p *egressPolicy) guardedDialer(base *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if p.allowsPrivate(addr) {
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

// newHTTPTransport is the transport of one registry: the guarded dialer,
// the registry's TLS roots, no proxy from the environment (a proxy would
// dial on our behalf, past the guard), bounded response header wait.
func (p *egressPolicy) newHTTPTransport(r *registryPolicy, requestTimeout time.Duration) *http.Transport {
	return &http.Transport{
		Proxy:                 nil,
		DialContext:           p.guardedDialer(&net.Dialer{Timeout: requestTimeout, KeepAlive: 30 * time.Second}),
		TLSClientConfig:       r.tlsConfig.Clone(),
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          32,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   requestTimeout,
		ResponseHeaderTimeout: requestTimeout,
	}
}

// guardTransport sits under the registry client: every request it sends,
// redirects and token requests included, passes the egress checks; every
// answer is counted, size-capped, and a 429's Retry-After is kept for the
// resolver.
type guardTransport struct {
	policy  *egressPolicy
	inner   http.RoundTripper
	metrics *resolverMetrics
}

func (t *guardTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.check(req); err != nil {
		t.metrics.request(req.Method, "refused")
		return nil, err
	}
	resp, err := t.inner.RoundTrip(req)
	if err != nil {
		t.metrics.request(req.Method, "error")
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
