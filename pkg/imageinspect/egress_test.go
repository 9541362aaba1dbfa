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
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

const someDigest = "sha256:0123456789012345678901234567890123456789012345678901234567890123"

func TestParseRef(t *testing.T) {
	tests := []struct {
		name    string
		ref     string
		wantKey string
		wantTag bool
		wantErr bool
	}{
		{name: "docker hub short name", ref: "nginx", wantKey: "docker.io/library/nginx:latest", wantTag: true},
		{name: "docker hub with tag", ref: "golang:1.23-windowsservercore", wantKey: "docker.io/library/golang:1.23-windowsservercore", wantTag: true},
		{name: "explicit docker.io", ref: "docker.io/library/nginx:latest", wantKey: "docker.io/library/nginx:latest", wantTag: true},
		{name: "mcr", ref: "mcr.microsoft.com/windows/servercore:ltsc2022", wantKey: "mcr.microsoft.com/windows/servercore:ltsc2022", wantTag: true},
		{name: "port", ref: "registry.local:5000/app:1", wantKey: "registry.local:5000/app:1", wantTag: true},
		{name: "digest", ref: "contoso.azurecr.io/orders@" + someDigest, wantKey: "contoso.azurecr.io/orders@" + someDigest},
		{name: "tag and digest pull by digest", ref: "contoso.azurecr.io/orders:1.4.2@" + someDigest, wantKey: "contoso.azurecr.io/orders@" + someDigest},
		{name: "upper case", ref: "Contoso/App:1", wantErr: true},
		{name: "empty", ref: "", wantErr: true},
		{name: "bad digest", ref: "app@sha256:abc", wantErr: true},
		{name: "dotted first component that is no host", ref: "a_b.c/d", wantErr: true}, // found by FuzzParseRef
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseRef(tt.ref)
			if (err != nil) != tt.wantErr {
				t.Fatalf("parseRef(%q) error = %v, want error %v", tt.ref, err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if got.key != tt.wantKey || got.isTag() != tt.wantTag {
				t.Errorf("parseRef(%q) = %+v, want key %q tag %v", tt.ref, got, tt.wantKey, tt.wantTag)
			}
		})
	}
}

func TestRegistryFor(t *testing.T) {
	policy, err := newEgressPolicy([]Registry{
		{Host: "mcr.microsoft.com"},
		{Host: "*.azurecr.io"},
		{Host: "*.eu.azurecr.io", AllowPrivate: true},
		{Host: "registry.local:5000", Insecure: true},
		{Host: "docker.io", Endpoints: []string{"http://10.0.0.5:5000", "mirror.local"}, Insecure: true, AllowPrivate: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name         string
		host         string
		wantPattern  string
		allowPrivate string
		wantPrivate  bool
		plainHTTP    string
		wantPlain    bool
	}{
		{name: "exact", host: "mcr.microsoft.com", wantPattern: "mcr.microsoft.com", allowPrivate: "mcr.microsoft.com:443", plainHTTP: "mcr.microsoft.com"},
		{name: "exact in any case", host: "MCR.microsoft.com", wantPattern: "mcr.microsoft.com"},
		{name: "wildcard", host: "contoso.azurecr.io", wantPattern: "*.azurecr.io", allowPrivate: "contoso.azurecr.io"},
		{name: "longer wildcard wins", host: "contoso.eu.azurecr.io", wantPattern: "*.eu.azurecr.io", allowPrivate: "contoso.eu.azurecr.io:443", wantPrivate: true},
		{name: "wildcard needs a label", host: "azurecr.io"},
		{name: "suffix is not a domain", host: "evilazurecr.io"},
		{name: "port must match", host: "registry.local", plainHTTP: "registry.local:5000", wantPlain: true},
		{name: "port", host: "registry.local:5000", wantPattern: "registry.local:5000"},
		{name: "mirror endpoint private and plain", host: "docker.io", wantPattern: "docker.io", allowPrivate: "10.0.0.5:5000", wantPrivate: true, plainHTTP: "10.0.0.5:5000", wantPlain: true},
		{name: "upstream of a mirrored registry is not private", host: "ghcr.io", allowPrivate: "docker.io:443"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := policy.registryFor(tt.host)
			if (got == nil && tt.wantPattern != "") || (got != nil && got.Host != tt.wantPattern) {
				t.Errorf("registryFor(%q) = %v, want %q", tt.host, got, tt.wantPattern)
			}
			if tt.allowPrivate != "" && policy.allowsPrivate(tt.allowPrivate) != tt.wantPrivate {
				t.Errorf("allowsPrivate(%q) = %v, want %v", tt.allowPrivate, !tt.wantPrivate, tt.wantPrivate)
			}
			if tt.plainHTTP != "" && policy.allowsPlainHTTP(tt.plainHTTP) != tt.wantPlain {
				t.Errorf("allowsPlainHTTP(%q) = %v, want %v", tt.plainHTTP, !tt.wantPlain, tt.wantPlain)
			}
		})
	}
}

func TestNewEgressPolicyErrors(t *testing.T) {
	tests := []struct {
		name string
		reg  Registry
	}{
		{name: "path in host", reg: Registry{Host: "mcr.microsoft.com/windows"}},
		{name: "inner wildcard", reg: Registry{Host: "a.*.io"}},
		{name: "empty", reg: Registry{Host: ""}},
		{name: "endpoint path", reg: Registry{Host: "docker.io", Endpoints: []string{"https://mirror/v2/docker.io"}}},
		{name: "endpoint scheme", reg: Registry{Host: "docker.io", Endpoints: []string{"ftp://mirror"}}},
		{name: "plain endpoint, secure registry", reg: Registry{Host: "docker.io", Endpoints: []string{"http://mirror"}}},
		{name: "missing CA file", reg: Registry{Host: "docker.io", CAFile: "/nonexistent/ca.pem"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := newEgressPolicy([]Registry{tt.reg}); err == nil {
				t.Errorf("newEgressPolicy(%+v) accepted it", tt.reg)
			}
		})
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		in   string
		want time.Duration
	}{
		{name: "seconds", in: "30", want: 30 * time.Second},
		{name: "zero", in: "0", want: 0},
		{name: "negative", in: "-5", want: 0},
		{name: "huge is capped", in: "99999999999", want: maxRetryAfter},
		{name: "date", in: now.Add(90 * time.Second).Format(http.TimeFormat), want: 90 * time.Second},
		{name: "past date", in: now.Add(-time.Hour).Format(http.TimeFormat), want: 0},
		{name: "empty", in: "", want: 0},
		{name: "garbage", in: "soon", want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseRetryAfter(tt.in, now); got != tt.want {
				t.Errorf("parseRetryAfter(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestClassify(t *testing.T) {
	status := func(code int, codes ...transport.ErrorCode) error {
		e := &transport.Error{StatusCode: code}
		for _, c := range codes {
			e.Errors = append(e.Errors, transport.Diagnostic{Code: c, Message: "secret-looking text"})
		}
		return fmt.Errorf("GET https://r/v2/x/manifests/1: %w", e)
	}
	tests := []struct {
		name       string
		err        error
		want       ErrorClass
		wantDetail string
	}{
		{name: "401", err: status(401, transport.UnauthorizedErrorCode), want: ClassUnauthorized, wantDetail: "HTTP 401 UNAUTHORIZED"},
		{name: "403", err: status(403, transport.DeniedErrorCode), want: ClassUnauthorized, wantDetail: "HTTP 403 DENIED"},
		{name: "404", err: status(404, transport.ManifestUnknownErrorCode), want: ClassNotFound, wantDetail: "HTTP 404 MANIFEST_UNKNOWN"},
		{name: "429", err: status(429, transport.TooManyRequestsErrorCode), want: ClassRateLimited, wantDetail: "HTTP 429 TOOMANYREQUESTS"},
		{name: "502", err: status(502), want: ClassUnavailable, wantDetail: "HTTP 502"},
		{name: "400", err: status(400), want: ClassInvalid, wantDetail: "HTTP 400"},
		{name: "refused", err: fmt.Errorf("dial: %w", &refusedError{reason: "x is private"}), want: ClassRefused, wantDetail: "x is private"},
		{
			name: "HTTPS refused, plain-HTTP fallback refused by policy",
			err: pingErrors{&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED},
				&refusedError{reason: "plain HTTP to h is not allowed (registry not insecure)", plainHTTP: true}},
			want: ClassUnavailable, wantDetail: "connection refused",
		},
		{
			name: "HTTPS timed out, plain-HTTP fallback refused by policy",
			err:  pingErrors{fmt.Errorf("ping: %w", context.DeadlineExceeded), &refusedError{reason: "plain HTTP", plainHTTP: true}},
			want: ClassUnavailable, wantDetail: "request timed out",
		},
		{
			name: "HTTPS to a plain-HTTP server, fallback refused by policy",
			err:  pingErrors{errors.New("tls: first record does not look like a TLS handshake"), &refusedError{reason: "plain HTTP", plainHTTP: true}},
			want: ClassRefused, wantDetail: "plain HTTP",
		},
		{
			name: "HTTPS dial to a private address refused",
			err: pingErrors{&net.OpError{Op: "dial", Net: "tcp", Err: &refusedError{reason: "h resolves to private address 10.0.0.1"}},
				&refusedError{reason: "plain HTTP", plainHTTP: true}},
			want: ClassRefused, wantDetail: "h resolves to private address 10.0.0.1",
		},
		{name: "invalid", err: invalidf("schema 1"), want: ClassInvalid, wantDetail: "schema 1"},
		{name: "too large", err: &tooLargeError{what: "/v2/a/manifests/b", limit: maxManifestBytes}, want: ClassInvalid, wantDetail: "manifest larger than 4 MiB"},
		{name: "plain error", err: errors.New("EOF"), want: ClassUnavailable, wantDetail: "EOF"},
		{
			name: "an error code of 2,000 bytes", err: status(400, transport.ErrorCode(strings.Repeat("C", 2000))),
			want: ClassInvalid, wantDetail: "HTTP 400 " + strings.Repeat("C", maxDetailBytes-len("HTTP 400 ")-len(truncatedMark)) + truncatedMark,
		},
		{
			name: "answer headers over the limit",
			err:  &url.Error{Op: "Get", URL: "https://r/v2/", Err: errors.New("net/http: server response headers exceeded 65536 bytes; aborted")},
			want: ClassInvalid, wantDetail: "response headers larger than 64 KiB",
		},
		{
			name: "realm refused by the registry client",
			err:  fmt.Errorf("invalid realm in www-authenticate: %w", errors.New(`realm host "10.0.0.1" is a private or link-local address`)),
			want: ClassRefused, wantDetail: `token service refused: realm host "10.0.0.1" is a private or link-local address`,
		},
		{
			name: "token service answer without a token is left out",
			err:  errors.New("no token in bearer response:\n{\"refresh_token\":\"r3fresh\"}"),
			want: ClassUnavailable, wantDetail: "token service answered without a token",
		},
		{name: "pull secret changed during the run", err: fmt.Errorf("x: %w", errSecretChanged), want: ClassUnavailable, wantDetail: errSecretChanged.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, detail := classify(tt.err)
			if got != tt.want || detail != tt.wantDetail {
				t.Errorf("classify(%v) = %v %q, want %v %q", tt.err, got, detail, tt.want, tt.wantDetail)
			}
		})
	}
}

// pingErrors is how the registry client reports a ping that failed over
// HTTPS and then plain HTTP: both errors, As and Is trying each in turn.
type pingErrors []error

func (m pingErrors) Error() string { return fmt.Sprint([]error(m)) }

func (m pingErrors) As(target any) bool {
	for _, err := range m {
		if errors.As(err, target) {
			return true
		}
	}
	return false
}

func (m pingErrors) Is(target error) bool {
	for _, err := range m {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

func TestKindOf(t *testing.T) {
	tests := []struct {
		name     string
		manifest string
		mt       types.MediaType
		want     manifestKind
	}{
		{name: "OCI index", mt: types.OCIImageIndex, want: kindIndex},
		{name: "Docker list", mt: types.DockerManifestList, want: kindIndex},
		{name: "OCI image", mt: types.OCIManifestSchema1, want: kindImage},
		{name: "Docker image", mt: types.DockerManifestSchema2, want: kindImage},
		{name: "schema 1 signed", mt: types.DockerManifestSchema1Signed, want: kindSchema1},
		{name: "generic type, index body", mt: "application/json", manifest: `{"schemaVersion":2,"manifests":[{}]}`, want: kindIndex},
		{name: "no type, media type in body", manifest: `{"schemaVersion":2,"mediaType":"application/vnd.docker.distribution.manifest.v2+json"}`, want: kindImage},
		{name: "no type, schema 1 body", manifest: `{"schemaVersion":1}`, want: kindSchema1},
		{name: "helm chart", mt: "application/vnd.cncf.helm.chart.v1+json", manifest: `{"config":{}}`, want: kindUnknown},
		{name: "garbage", manifest: `not json`, want: kindUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := kindOf([]byte(tt.manifest), tt.mt); got != tt.want {
				t.Errorf("kindOf(%s, %q) = %v, want %v", tt.manifest, tt.mt, got, tt.want)
			}
		})
	}
}
