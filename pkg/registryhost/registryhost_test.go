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

package registryhost

import (
	"strings"
	"testing"
)

func TestValidatePattern(t *testing.T) {
	for _, tt := range []struct {
		pattern string
		ok      bool
	}{
		{"*", true},
		{"mcr.microsoft.com", true},
		{"registry.local:5000", true},
		{"*.azurecr.io", true},
		{"[::1]:5000", true},
		{"", false},
		{"*.", false},
		{"a.*.io", false},
		{"mcr.microsoft.com/windows", false},
		{"user@registry.local", false},
		{"registry local", false},
		{":5000", false},
	} {
		if err := ValidatePattern(tt.pattern); (err == nil) != tt.ok {
			t.Errorf("ValidatePattern(%q) = %v, want ok %v", tt.pattern, err, tt.ok)
		}
	}
}

func TestParseEndpoint(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Endpoint
		err  string
	}{
		{in: "mirror.local:5000", want: Endpoint{Host: "mirror.local:5000"}},
		{in: "https://mirror.local/", want: Endpoint{Host: "mirror.local"}},
		{in: "http://10.0.0.5:5000", want: Endpoint{Host: "10.0.0.5:5000", Insecure: true}},
		{in: "ftp://mirror.local", err: "scheme must be https or http"},
		{in: "https://mirror.local/v2", err: "paths are not supported"},
		{in: "https://", err: "is not [scheme://]host[:port]"},
	} {
		got, err := ParseEndpoint(tt.in)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseEndpoint(%q) = %+v, %v; want an error with %q", tt.in, got, err, tt.err)
			}
		case err != nil || got != tt.want:
			t.Errorf("ParseEndpoint(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
}

// FuzzParseEndpoint: whatever an administrator writes, an endpoint that
// parses is a bare host[:port], which reads back as itself under its
// scheme.
func FuzzParseEndpoint(f *testing.F) {
	for _, s := range []string{"mirror.local:5000", "https://mirror.local/", "http://10.0.0.5:5000", "ftp://x", "https://a/b", "[::1]:5000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ep, err := ParseEndpoint(s)
		if err != nil {
			return
		}
		if ep.Host == "" || strings.ContainsAny(ep.Host, "/@ ") {
			t.Fatalf("ParseEndpoint(%q) = %+v: not a bare host[:port]", s, ep)
		}
		scheme := "https://"
		if ep.Insecure {
			scheme = "http://"
		}
		if again, err := ParseEndpoint(scheme + ep.Host); err != nil || again != ep {
			t.Fatalf("ParseEndpoint(%q) = %+v, but %q reads as %+v, %v", s, ep, scheme+ep.Host, again, err)
		}
	})
}
