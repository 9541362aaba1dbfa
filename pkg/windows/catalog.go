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
	"fmt"
	"strings"
)

// Release ties a token found in image tags to the Windows build it names.
type Release struct {
	Token string
	Build Build
}

func build10(number uint32) Build { return Build{Major: 10, Minor: 0, Number: number} }

// KnownReleases is the table of docs/windows-facts.md: every token Microsoft and
// Docker use in tags for a Windows release, and the build it needs.
var KnownReleases = []Release{
	{"ltsc2016", build10(14393)},
	{"1607", build10(14393)},
	{"sac2016", build10(14393)},
	{"1709", build10(16299)},
	{"1803", build10(17134)},
	{"1809", build10(17763)},
	{"ltsc2019", build10(17763)},
	{"1903", build10(18362)},
	{"1909", build10(18363)},
	{"2004", build10(19041)},
	{"20H2", build10(19042)},
	{"ltsc2022", build10(20348)},
	{"ltsc2025", build10(26100)},
}

// Catalog resolves tag tokens to builds: the known releases plus those an
// administrator adds for releases that ship after this binary.
type Catalog struct {
	byToken map[string]Build // keyed by lower-case token
	builds  map[Build]bool   // every build some token names
}

// NewCatalog returns a catalog of KnownReleases and extra. An extra entry may
// add a token or re-point an existing one; it is an error for a token to be
// empty, to contain a separator, or to be listed twice in extra.
func NewCatalog(extra []Release) (*Catalog, error) {
	c := &Catalog{byToken: map[string]Build{}, builds: map[Build]bool{}}
	for _, r := range KnownReleases {
		c.add(r)
	}
	seen := map[string]bool{}
	for _, r := range extra {
		key := TokenKey(r.Token)
		if err := ValidateToken(r.Token); err != nil {
			return nil, err
		}
		if seen[key] {
			return nil, fmt.Errorf("token %q is listed twice", r.Token)
		}
		if r.Build.IsZero() {
			return nil, fmt.Errorf("token %q has no build", r.Token)
		}
		seen[key] = true
		c.add(r)
	}
	return c, nil
}

// DefaultCatalog is the catalog of KnownReleases alone.
func DefaultCatalog() *Catalog {
	c, _ := NewCatalog(nil)
	return c
}

func (c *Catalog) add(r Release) {
	c.byToken[TokenKey(r.Token)] = r.Build
	c.builds[r.Build] = true
}

// TokenKey is the form under which tokens are compared: tags spell 20H2 and
// 20h2 alike.
func TokenKey(token string) string { return strings.ToLower(token) }

// ValidateToken checks that token can appear as one token of a tag: a valid
// tag character set without the '-' that separates tokens.
func ValidateToken(token string) error {
	if token == "" {
		return fmt.Errorf("token must not be empty")
	}
	for i := 0; i < len(token); i++ {
		c := token[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.') {
			return fmt.Errorf("token %q may hold only letters, digits, '_' and '.'", token)
		}
	}
	return nil
}

// lookup returns the build a single tag token names, and whether the token
// is distinctive enough to count in any repository.
func (c *Catalog) lookup(token string) (b Build, distinctive, ok bool) {
	if b, ok = c.byToken[TokenKey(token)]; ok {
		return b, !isBareReleaseNumber(token), true
	}
	// 10.0.<build>.<revision> counts only for a build some release has:
	// "10.0.1.2" is an ordinary version on countless images.
	if v, ok := parseVersionToken(token); ok && c.builds[v.Build] {
		return v.Build, true, true
	}
	return Build{}, false, false
}

// isBareReleaseNumber reports whether token is spelled like the releases
// 1809, 2004 or 20H2: digits, optionally with one 'H' inside. Such tokens are
// also ordinary version tags on Linux images, so they count only where the
// image is otherwise known to be Windows; "ltsc2019" and the like are
// distinctive.
func isBareReleaseNumber(token string) bool {
	h := 0
	for i := 0; i < len(token); i++ {
		switch c := token[i]; {
		case c >= '0' && c <= '9':
		case (c == 'h' || c == 'H') && i > 0 && i < len(token)-1:
			h++
		default:
			return false
		}
	}
	return h <= 1
}
