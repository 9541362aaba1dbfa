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
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/google/go-containerregistry/pkg/v1/remote/transport"

	"github.com/windows-aware/windows-aware/pkg/safetext"
)

// ErrorClass says why a resolution failed, in terms an operator can act on.
// The plugin chooses its fallback and its Event text from it.
type ErrorClass uint8

// The error classes.
const (
	// ClassNone is the class of a result that did not fail.
	ClassNone ErrorClass = iota
	// ClassUnauthorized: the registry answered 401 or 403 to every
	// credential tried.
	ClassUnauthorized
	// ClassNotFound: the registry has no such repository, tag or digest.
	ClassNotFound
	// ClassRateLimited: the registry answered 429; the resolver waits for
	// its Retry-After before it asks that registry again.
	ClassRateLimited
	// ClassUnavailable: the registry could not be reached, timed out or
	// answered 5xx.
	ClassUnavailable
	// ClassInvalid: the registry answered with something that is not an
	// image manifest, index or config we can read (schema 1, an unknown
	// media type, malformed or oversized JSON, a reference that does not
	// parse).
	ClassInvalid
	// ClassRefused: the egress policy forbids asking: the registry is not
	// allowlisted, or an address it resolves to is private. Resolution is
	// not permitted for the image; the tag rules apply to it.
	ClassRefused
)

var classNames = [...]string{
	ClassNone:         "none",
	ClassUnauthorized: "unauthorized",
	ClassNotFound:     "not_found",
	ClassRateLimited:  "rate_limited",
	ClassUnavailable:  "unavailable",
	ClassInvalid:      "invalid",
	ClassRefused:      "refused",
}

// String is the class as metric labels and logs spell it.
func (c ErrorClass) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return "class(" + strconv.Itoa(int(c)) + ")"
}

// describe is the phrase an Event uses for the class. It says that the
// registry decided, so that operators do not blame the scheduler for a
// registry's refusal.
func (c ErrorClass) describe() string {
	switch c {
	case ClassUnauthorized:
		return "registry denied access (check imagePullSecrets)"
	case ClassNotFound:
		return "registry has no such image"
	case ClassRateLimited:
		return "registry rate limit reached"
	case ClassUnavailable:
		return "registry unavailable"
	case ClassInvalid:
		return "registry returned an unreadable manifest"
	case ClassRefused:
		return "registry not permitted by the resolution policy"
	}
	return "resolution failed"
}

// Error is a failed resolution. Its message names the image and the
// registry host and never carries credentials or response bodies.
type Error struct {
	// Image is the reference the pod names.
	Image string
	// Host is the registry (or mirror) host that failed.
	Host string
	// Class is why.
	Class ErrorClass
	// Detail is a short reason: a status code, a registry error code, a
	// network error. At most maxDetailBytes: whatever the registry sent.
	Detail string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("image ")
	b.WriteString(strconv.Quote(e.Image))
	b.WriteString(": ")
	b.WriteString(e.Class.describe())
	if e.Host != "" {
		b.WriteString(" (")
		b.WriteString(e.Host)
		b.WriteString(")")
	}
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	return b.String()
}

// refusedError marks a request the egress guard stopped before it left
// the process. plainHTTP marks a refused plain-HTTP request to a registry
// not listed insecure.
type refusedError struct {
	reason    string
	plainHTTP bool
}

func (e *refusedError) Error() string { return e.reason }

// invalidError marks content that is not a readable manifest or config.
type invalidError struct{ reason string }

func (e *invalidError) Error() string { return e.reason }

func invalidf(format string, args ...any) error {
	return &invalidError{reason: fmt.Sprintf(format, args...)}
}

// A registry chooses the text of its error bodies, error codes, headers
// and manifests, and the registry client quotes some of it in its errors.
// Every failed cache entry keeps its Error until it is evicted (up to
// cache.maxEntries of them), and the Error goes into Events and logs: a
// detail keeps at most maxDetailBytes of it, the cut marked.
const (
	maxDetailBytes = 1 << 10
	truncatedMark  = "…(truncated)"
)

// truncateDetail cuts s to maxDetailBytes, mark included, at a character
// boundary. The cut is a copy: the registry's whole text is not kept
// alive behind it.
func truncateDetail(s string) string {
	if len(s) <= maxDetailBytes {
		return s
	}
	cut := maxDetailBytes - len(truncatedMark)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + truncatedMark
}

// classify maps an error from the registry client to a class and a short
// detail safe to show in an Event, at most maxDetailBytes long.
func classify(err error) (ErrorClass, string) {
	class, detail := classifyError(err)
	// A registry's words, escaped before they are kept: they reach Events
	// and an administrator's terminal (kubectl windows-aware status).
	return class, truncateDetail(safetext.Text(detail))
}

func classifyError(err error) (ErrorClass, string) {
	if headersTooLarge(err) {
		// Not retried: a registry that sends such headers once sends
		// them again.
		return ClassInvalid, "response headers larger than " + strconv.Itoa(maxResponseHeaderBytes>>10) + " KiB"
	}
	var refused *refusedError
	if errors.As(err, &refused) {
		if class, detail, ok := classifyHTTPSFailure(err, refused); ok {
			return class, detail
		}
		return ClassRefused, refused.reason
	}
	if detail, ok := clientRedirectRefusal(err); ok {
		return ClassRefused, detail
	}
	if strings.Contains(err.Error(), clientRealmRefusal) {
		return ClassRefused, "token service refused: " + networkDetail(err)
	}
	if strings.HasPrefix(networkDetail(err), clientNoToken) {
		// The client quotes the token service's whole answer, which may
		// hold other credentials (a refresh token): none of it is kept.
		return ClassUnavailable, "token service answered without a token"
	}
	if errors.Is(err, errSecretChanged) {
		return ClassUnavailable, errSecretChanged.Error()
	}
	var invalid *invalidError
	if errors.As(err, &invalid) {
		return ClassInvalid, invalid.reason
	}
	var tooLarge *tooLargeError
	if errors.As(err, &tooLarge) {
		return ClassInvalid, tooLarge.Error()
	}
	var terr *transport.Error
	if errors.As(err, &terr) {
		return classifyStatus(terr.StatusCode, registryCodes(terr))
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return ClassUnavailable, "request timed out"
	}
	if errors.Is(err, context.Canceled) {
		return ClassUnavailable, "request cancelled"
	}
	var nerr net.Error
	if errors.As(err, &nerr) {
		if nerr.Timeout() {
			return ClassUnavailable, "request timed out"
		}
		return ClassUnavailable, networkDetail(err)
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) {
		return ClassUnavailable, networkDetail(err)
	}
	// Connections closed mid-response, TLS failures and the like: the
	// registry could not be talked to.
	return ClassUnavailable, networkDetail(err)
}

// headerLimitErrors are the HTTP client's errors, over HTTP/1 and HTTP/2,
// for an answer whose headers pass MaxResponseHeaderBytes. They are plain
// strings, and the registry client may report them inside a list of
// errors (HTTPS and plain HTTP tried in turn): the message is all there is
// to go by.
var headerLimitErrors = []string{"server response headers exceeded", "response header list larger than"}

func headersTooLarge(err error) bool {
	msg := err.Error()
	for _, s := range headerLimitErrors {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// clientRedirectRefusals start the errors of the registry client's own
// redirect checks, which refuse some hops (to a private address literal,
// a token server's redirect off the registry) before our transport sees
// them. They are policy refusals like ours: reported as such, not retried.
var clientRedirectRefusals = []string{"SSRF protection:", "refusing token-server redirect"}

// clientRealmRefusal is in the error of the registry client's own check
// of a challenge's realm (a private address literal other than the
// registry, a plain-HTTP realm of a secure registry): a policy refusal,
// final, like the guard's.
const clientRealmRefusal = "invalid realm in www-authenticate"

// clientNoToken starts the registry client's error for a token service's
// answer that holds no token.
const clientNoToken = "no token in bearer response"

func clientRedirectRefusal(err error) (string, bool) {
	var uerr *url.Error
	if !errors.As(err, &uerr) || uerr.Err == nil {
		return "", false
	}
	msg := uerr.Err.Error()
	for _, prefix := range clientRedirectRefusals {
		if strings.HasPrefix(msg, prefix) {
			return msg, true
		}
	}
	return "", false
}

// classifyHTTPSFailure classifies the HTTPS failure that came with a
// refused plain-HTTP fallback. For loopback, private and *.local hosts
// the registry client pings HTTPS and then plain HTTP, and reports both
// errors; the guard refuses the plain-HTTP one for a registry not listed
// insecure. When HTTPS could not connect, time out or was cut off, the
// registry is unavailable, and must be reported and retried as such, not
// taken for a policy refusal (which is silent and never retried). An
// HTTPS failure of another kind (a plain-HTTP server, a bad certificate)
// leaves the refusal standing: the configuration has to change.
func classifyHTTPSFailure(err error, refused *refusedError) (ErrorClass, string, bool) {
	if !refused.plainHTTP {
		return 0, "", false
	}
	var opErr *net.OpError
	switch {
	case errors.As(err, &opErr):
		return ClassUnavailable, networkDetail(opErr), true
	case errors.Is(err, context.DeadlineExceeded):
		return ClassUnavailable, "request timed out", true
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET):
		return ClassUnavailable, "connection closed", true
	}
	return 0, "", false
}

func classifyStatus(code int, registryCodes string) (ErrorClass, string) {
	detail := "HTTP " + strconv.Itoa(code)
	if registryCodes != "" {
		detail += " " + registryCodes
	}
	switch {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return ClassUnauthorized, detail
	case code == http.StatusNotFound:
		return ClassNotFound, detail
	case code == http.StatusTooManyRequests:
		return ClassRateLimited, detail
	case code >= 500 || code == http.StatusRequestTimeout:
		return ClassUnavailable, detail
	}
	return ClassInvalid, detail
}

// registryCodes joins the distribution error codes (MANIFEST_UNKNOWN,
// DENIED, TOOMANYREQUESTS); their free-text messages are left out, as a
// registry may echo anything in them. A body may hold thousands of codes,
// or one of 64 KiB: joining stops past maxDetailBytes, which is all the
// detail keeps.
func registryCodes(terr *transport.Error) string {
	var b strings.Builder
	for _, d := range terr.Errors {
		if d.Code == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(string(d.Code))
		if b.Len() > maxDetailBytes {
			break
		}
	}
	return b.String()
}

// networkDetail keeps the innermost message of a network error (e.g.
// "connection refused"), without the URL that wraps it.
func networkDetail(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}
