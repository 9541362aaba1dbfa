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
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"strings"

	"github.com/windows-aware/windows-aware/pkg/registryhost"
)

// Registry allowlists one registry host pattern and says how to reach it.
type Registry struct {
	// Host is the registry as image references name it: an exact host
	// ("mcr.microsoft.com", "registry.local:5000"), "*.suffix" for every
	// host under a domain ("*.azurecr.io"), or "*" for any registry. A
	// pattern without a port matches only references without one.
	Host string
	// Endpoints, when set, are the hosts asked instead of Host, in order,
	// as containerd's hosts.toml mirrors are: "mirror.local:5000",
	// "https://mirror.local", "http://127.0.0.1:5000" (http needs
	// Insecure). Repository paths are kept ("docker.io/library/nginx" is
	// asked of the mirror as "library/nginx"). To fall back to the
	// registry itself, list it last.
	Endpoints []string
	// Insecure allows plain HTTP to this registry's endpoints.
	Insecure bool
	// AllowPrivate lets this registry's endpoints resolve to loopback,
	// private and link-local addresses, which are refused otherwise.
	AllowPrivate bool
	// CAFile is a PEM bundle trusted for this registry's endpoints, in
	// addition to the system roots.
	CAFile string
}

// endpoint is one host a registry is asked through.
type endpoint struct {
	// host is host[:port] as the requests carry it.
	host string
	// insecure means plain HTTP.
	insecure bool
}

// registryPolicy is a parsed Registry.
type registryPolicy struct {
	Registry
	endpoints []endpoint
	tlsConfig *tls.Config
}

// egressPolicy decides which registries may be asked, and which hosts may
// be dialled at private addresses or over plain HTTP.
type egressPolicy struct {
	registries []*registryPolicy
}

func newEgressPolicy(registries []Registry) (*egressPolicy, error) {
	p := &egressPolicy{}
	for i, r := range registries {
		if err := registryhost.ValidatePattern(r.Host); err != nil {
			return nil, fmt.Errorf("registries[%d].host: %w", i, err)
		}
		rp := &registryPolicy{Registry: r}
		for j, e := range r.Endpoints {
			ep, err := registryhost.ParseEndpoint(e)
			if err != nil {
				return nil, fmt.Errorf("registries[%d].endpoints[%d]: %w", i, j, err)
			}
			if ep.Insecure && !r.Insecure {
				return nil, fmt.Errorf("registries[%d].endpoints[%d]: %q is plain HTTP but the registry is not insecure", i, j, e)
			}
			rp.endpoints = append(rp.endpoints, endpoint{host: ep.Host, insecure: ep.Insecure})
		}
		tc, err := tlsConfigFor(r.CAFile)
		if err != nil {
			return nil, fmt.Errorf("registries[%d].caFile: %w", i, err)
		}
		rp.tlsConfig = tc
		p.registries = append(p.registries, rp)
	}
	return p, nil
}

func tlsConfigFor(caFile string) (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if caFile == "" {
		return tc, nil
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, err
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s holds no PEM certificate", caFile)
	}
	tc.RootCAs = pool
	return tc, nil
}

// registryFor returns the policy of the registry host, or nil when no
// pattern allowlists it. An exact pattern wins over a wildcard, and a
// longer wildcard over a shorter one.
func (p *egressPolicy) registryFor(host string) *registryPolicy {
	var best *registryPolicy
	bestLen := -1
	for _, r := range p.registries {
		switch {
		case strings.EqualFold(r.Host, host):
			return r
		case r.Host == "*":
			if bestLen < 0 {
				best, bestLen = r, 0
			}
		case strings.HasPrefix(r.Host, "*."):
			suffix := r.Host[1:]
			if len(host) > len(suffix) && strings.HasSuffix(strings.ToLower(host), strings.ToLower(suffix)) && len(suffix) > bestLen {
				best, bestLen = r, len(suffix)
			}
		}
	}
	return best
}

// endpointsOf lists the hosts to ask for an image of host.
func (r *registryPolicy) endpointsOf(host string) []endpoint {
	if len(r.endpoints) > 0 {
		return r.endpoints
	}
	return []endpoint{{host: host, insecure: r.Insecure}}
}

// canonicalHostPort spells a dial or request address so that it compares
// with a configured host: lower case, default ports dropped.
func canonicalHostPort(hostport string) string {
	hostport = strings.ToLower(hostport)
	if h, port, err := net.SplitHostPort(hostport); err == nil && (port == "443" || port == "80") {
		if strings.Contains(h, ":") {
			return "[" + h + "]"
		}
		return h
	}
	return hostport
}

// hostAllows reports whether some registry whose flag is set names
// hostport, as its own pattern or as one of its endpoints.
func (p *egressPolicy) hostAllows(hostport string, flag func(*registryPolicy) bool) bool {
	hp := canonicalHostPort(hostport)
	for _, r := range p.registries {
		if !flag(r) {
			continue
		}
		for _, e := range r.endpoints {
			if canonicalHostPort(e.host) == hp {
				return true
			}
		}
		if len(r.endpoints) == 0 && patternMatches(r.Host, hp) {
			return true
		}
	}
	return false
}

func patternMatches(pattern, host string) bool {
	pattern = strings.ToLower(pattern)
	switch {
	case pattern == "*":
		return true
	case strings.HasPrefix(pattern, "*."):
		return len(host) > len(pattern)-1 && strings.HasSuffix(host, pattern[1:])
	}
	return canonicalHostPort(pattern) == host
}

func (p *egressPolicy) allowsPrivate(hostport string) bool {
	return p.hostAllows(hostport, func(r *registryPolicy) bool { return r.AllowPrivate })
}

func (p *egressPolicy) allowsPlainHTTP(hostport string) bool {
	return p.hostAllows(hostport, func(r *registryPolicy) bool { return r.Insecure })
}

// Allowlisted reports whether the registry of image reference ref is one
// of registries, by the patterns the resolver matches: whether a resolver
// of these registries would ask about the image at all. A reference that
// does not parse is not.
func Allowlisted(registries []Registry, ref string) bool {
	ir, err := parseRef(ref)
	if err != nil {
		return false
	}
	p := &egressPolicy{}
	for i := range registries {
		p.registries = append(p.registries, &registryPolicy{Registry: registries[i]})
	}
	return p.registryFor(ir.host) != nil
}
