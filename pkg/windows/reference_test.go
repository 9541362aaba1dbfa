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
	"strings"
	"testing"
	"unicode"
)

// longestReference is a reference of exactly MaxReferenceLength bytes that
// parses: a 255-byte name, a 128-byte tag and a sha512 digest.
func longestReference() string {
	domain := "registry.example.com/"
	name := domain + strings.Repeat("a", 255-len(domain))
	return name + ":" + strings.Repeat("t", 128) + "@sha512:" + strings.Repeat("0", 128)
}

func TestImageOfReferenceLength(t *testing.T) {
	c := DefaultCatalog()
	longest := longestReference()
	if len(longest) != MaxReferenceLength {
		t.Fatalf("the longest reference has %d bytes, MaxReferenceLength says %d", len(longest), MaxReferenceLength)
	}
	tests := []struct {
		name    string
		ref     string
		tooLong bool
		parses  bool
	}{
		{name: "the longest that parses", ref: longest, parses: true},
		{name: "one byte more", ref: longest + "0", tooLong: true},
		{name: "a megabyte", ref: "acme/app:" + strings.Repeat("x", 1<<20), tooLong: true},
		{name: "a megabyte of control bytes", ref: strings.Repeat("\x1b]52;c;", 1<<17), tooLong: true},
		{name: "short, with control bytes", ref: "acme/app:\x1b[2J\r\n", parses: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.ImageOf(tt.ref)
			if tt.parses {
				if err != nil {
					t.Fatalf("ImageOf: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("ImageOf: no error")
			}
			if got := errors.Is(err, ErrReferenceTooLong); got != tt.tooLong {
				t.Errorf("errors.Is(%v, ErrReferenceTooLong) = %v, want %v", err, got, tt.tooLong)
			}
			msg := err.Error()
			if len(msg) > maxErrorLength {
				t.Errorf("the error has %d bytes: %.200q…", len(msg), msg)
			}
			if strings.ContainsFunc(msg, unicode.IsControl) {
				t.Errorf("the error holds a control character: %q", msg)
			}
		})
	}
}

func TestQuoteReference(t *testing.T) {
	tests := []struct {
		ref, want string
	}{
		{ref: "nginx:1.27", want: `"nginx:1.27"`},
		{ref: "a\x1b[31mb", want: `"a\x1b[31mb"`},
		{ref: strings.Repeat("a", quotedReferenceMax), want: `"` + strings.Repeat("a", quotedReferenceMax) + `"`},
		{ref: strings.Repeat("a", quotedReferenceMax+1), want: `"` + strings.Repeat("a", quotedReferenceMax) + `"… (97 bytes)`},
	}
	for _, tt := range tests {
		if got := QuoteReference(tt.ref); got != tt.want {
			t.Errorf("QuoteReference(%.20q…) = %s, want %s", tt.ref, got, tt.want)
		}
	}
}
