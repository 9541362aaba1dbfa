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

// Package registryhost reads how an administrator names a registry in
// imageResolution.registries: a host pattern (a host[:port], *.domain or
// *) and the endpoints that serve it ([https://|http://]host[:port]). The
// args' validation and the resolver's egress policy both read them here,
// so that the configuration the scheduler accepts is the one its resolver
// runs; the package imports nothing of either.
package registryhost

import (
	"fmt"
	"net/url"
	"strings"
)

// ValidatePattern checks a registry host pattern: a host[:port], a
// *.domain wildcard, or * for every registry.
func ValidatePattern(pattern string) error {
	if pattern == "*" {
		return nil
	}
	host := strings.TrimPrefix(pattern, "*.")
	if host == "" || strings.ContainsAny(host, "*/@ ") {
		return fmt.Errorf("%q is not a host, *.domain or *", pattern)
	}
	if u, err := url.Parse("//" + host); err != nil || u.Host != host || u.Hostname() == "" {
		return fmt.Errorf("%q is not a host[:port]", pattern)
	}
	return nil
}

// Endpoint is where requests for a registry go.
type Endpoint struct {
	// Host is host[:port] as the requests carry it.
	Host string
	// Insecure means plain HTTP.
	Insecure bool
}

// ParseEndpoint reads [https://|http://]host[:port], with no path; https
// is the default.
func ParseEndpoint(s string) (Endpoint, error) {
	raw := s
	insecure := false
	switch {
	case strings.HasPrefix(s, "https://"):
		s = strings.TrimPrefix(s, "https://")
	case strings.HasPrefix(s, "http://"):
		s, insecure = strings.TrimPrefix(s, "http://"), true
	case strings.Contains(s, "://"):
		return Endpoint{}, fmt.Errorf("%q: scheme must be https or http", raw)
	}
	s = strings.TrimSuffix(s, "/")
	if u, err := url.Parse("//" + s); err != nil || u.Host != s || u.Hostname() == "" {
		return Endpoint{}, fmt.Errorf("%q is not [scheme://]host[:port] (paths are not supported)", raw)
	}
	return Endpoint{Host: s, Insecure: insecure}, nil
}
