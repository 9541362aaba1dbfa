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
	"strings"

	"github.com/distribution/reference"
)

// LTSCToken is the catalog's ltsc<year> token for build b ("ltsc2022" for
// 10.0.20348), "" when no such token names it: the spelling Microsoft's
// base images use for a release, and so the one a sibling tag gets.
func (c *Catalog) LTSCToken(b Build) string {
	best := ""
	for token, built := range c.byToken {
		if built == b && strings.HasPrefix(token, "ltsc") && isYear(strings.TrimPrefix(token, "ltsc")) && (best == "" || token < best) {
			best = token
		}
	}
	return best
}

// SiblingTag is the reference of the same repository whose tag names
// build target where ref's tag names another build: the token of the tag
// that names the build is respelled for target, as publishers tag their
// variants (iis:windowsservercore-ltsc2019 and …-ltsc2022,
// aspnet:8.0-nanoserver-1809 and …-nanoserver-ltsc2022,
// teamcity-agent:…-windowsservercore-2019 and …-2022). ok is false when
// the tag names no build, names target already, or no respelling reads as
// target (a release glued to a flavour, or in the repository path); the
// caller then has no tag to suggest, only a rebuild. Whether the registry
// holds the sibling is not known here.
func (c *Catalog) SiblingTag(ref string, target Build) (string, bool) {
	img, err := c.ImageOf(ref)
	if err != nil || img.Version.IsZero() || img.Version.Build == target {
		return "", false
	}
	token := c.LTSCToken(target)
	if token == "" {
		return "", false
	}
	named, err := reference.ParseNormalizedNamed(ref)
	if err != nil {
		return "", false
	}
	tagged, ok := named.(reference.Tagged)
	if !ok {
		return "", false
	}
	// The tag is the text after the last ':' that follows the last '/',
	// as the reference grammar places it; a digest is dropped.
	name := ref
	if at := strings.Index(name, "@"); at >= 0 {
		name = name[:at]
	}
	repo := strings.TrimSuffix(name, ":"+tagged.Tag())
	tokens := strings.Split(tagged.Tag(), "-")
	for i, t := range tokens {
		base := trimKB(strings.ToLower(t))
		var spellings []string
		if _, named := c.byToken[base]; named {
			spellings = []string{token} // ltsc2019, 1809: the LTSC token
		} else if isYear(base) {
			spellings = []string{strings.TrimPrefix(token, "ltsc")} // a vendor's year after a flavour
		}
		for _, s := range spellings {
			candidate := make([]string, len(tokens))
			copy(candidate, tokens)
			candidate[i] = s
			sibling := repo + ":" + strings.Join(candidate, "-")
			if got, err := c.ImageOf(sibling); err == nil && got.Version.Build == target {
				return sibling, true
			}
		}
	}
	return "", false
}
