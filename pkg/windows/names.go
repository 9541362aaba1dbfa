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

import "strings"

// LTSCYear is what follows "ltsc", in any case, in a release token: 2022
// for ltsc2022 and LTSC2022; "" and false for a token that does not start
// with it (1809, 23H2).
func LTSCYear(token string) (year string, ok bool) {
	year, ok = strings.CutPrefix(strings.ToLower(token), "ltsc")
	if !ok {
		return "", false
	}
	return year, true
}

// releaseNames names each build some release stands for by the first
// LTSC token of releases that names it, else by the first token that
// does; the keys are the builds as the node label spells them.
func releaseNames(releases []Release) map[string]string {
	names := map[string]string{}
	ltsc := map[string]bool{}
	for _, r := range releases {
		build := r.Build.String()
		if ltsc[build] {
			continue
		}
		if _, ok := LTSCYear(r.Token); ok {
			names[build], ltsc[build] = r.Token, true
		} else if _, named := names[build]; !named {
			names[build] = r.Token
		}
	}
	return names
}

// ReleaseName names a build, spelled as the node label spells it, by the
// release token that stands for it (ltsc2019 for 10.0.17763), preferring
// an LTSC token and otherwise the first of Releases; "" when none does,
// or when c is nil.
func (c *Catalog) ReleaseName(build string) string {
	if c == nil {
		return ""
	}
	return c.names[build]
}

// BuildNames lists builds with their release names: "10.0.17763
// (ltsc2019), 10.0.99999".
func (c *Catalog) BuildNames(builds []string) string {
	parts := make([]string, len(builds))
	for i, b := range builds {
		parts[i] = b
		if name := c.ReleaseName(b); name != "" {
			parts[i] += " (" + name + ")"
		}
	}
	return strings.Join(parts, ", ")
}
