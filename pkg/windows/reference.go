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

package windows

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/distribution/reference"
)

// MaxReferenceLength is the longest image reference that can parse: a
// repository name of reference.NameTotalLengthMax (255) bytes, a tag of
// at most 128 (the grammar's [\w][\w.-]{0,127}) and the longest digest
// the registries' algorithms have (sha512: 7 + 128 hexadecimal digits),
// with their separators. Kubernetes sets no limit on a container's image
// (a pod may carry megabytes there), so ImageOf refuses a longer one
// before the parser's regular expressions read it.
const MaxReferenceLength = reference.NameTotalLengthMax + 1 + 128 + 1 + len("sha512:") + 128

// ErrReferenceTooLong is ImageOf's error for a reference longer than
// MaxReferenceLength.
var ErrReferenceTooLong = errors.New("reference is longer than any that can parse")

// quotedReferenceMax is how much of a reference a message quotes, and
// parseDetailMax of the parser's own words (which may quote the
// repository name, escaped here).
const (
	quotedReferenceMax = 96
	parseDetailMax     = 160
)

// referenceError is ImageOf's error for a reference that does not parse:
// the reference quoted by QuoteReference, and the parser's error,
// which it wraps, in words escaped and cut, since they may quote the
// reference's name as it is.
type referenceError struct {
	ref string
	err error
}

func (e *referenceError) Error() string {
	detail := strconv.Quote(e.err.Error())
	detail = detail[1 : len(detail)-1]
	if len(detail) > parseDetailMax {
		detail = strings.ToValidUTF8(detail[:parseDetailMax], "") + "…"
	}
	return "image " + QuoteReference(e.ref) + ": " + detail
}

func (e *referenceError) Unwrap() error { return e.err }

// QuoteReference returns ref as a message shows it: quoted as %q quotes it
// (control bytes escaped), and cut to its first bytes, with its length,
// when it is longer than any readable reference. A reference that does
// not parse may be any length and hold any bytes, and the messages that
// name it travel into Events, logs, pod conditions and caches: a copy of
// the whole would make each of them as large as the pod.
func QuoteReference(ref string) string {
	if len(ref) <= quotedReferenceMax {
		return fmt.Sprintf("%q", ref)
	}
	return fmt.Sprintf("%q… (%d bytes)", ref[:quotedReferenceMax], len(ref))
}
