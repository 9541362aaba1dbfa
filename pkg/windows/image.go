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

	"github.com/distribution/reference"
)

// Image is what the reference of one container image says about the host it
// needs.
type Image struct {
	// Windows is set when the reference shows a Windows image: a release
	// token that counts, a Windows base flavour (nanoserver, servercore,
	// windowsservercore, alone or glued to a release) or the word windows as
	// a token of its tag, or a mcr.microsoft.com/windows repository.
	Windows bool
	// Version is the build (and, for 10.0.<build>.<revision> tags, the
	// revision) the image needs. It is zero when the tag names no build:
	// manifest lists that cover several builds carry none.
	Version Version
}

// ConflictingTagError is a tag that names two different builds, such as
// 1809-ltsc2022: no host can be sure to run it.
type ConflictingTagError struct {
	Image         string
	First, Second Build
}

func (e *ConflictingTagError) Error() string {
	return fmt.Sprintf("image %q: tag names two Windows builds, %s and %s", e.Image, e.First, e.Second)
}

// flavourTokens name a Windows Server base image in a tag
// (golang:1.22-windowsservercore-ltsc2022, dotnet/aspnet:8.0-nanoserver-1809).
var flavourTokens = map[string]bool{"nanoserver": true, "servercore": true, "windowsservercore": true}

// gluedFlavours are the flavours vendors glue to a release in one token
// (servercore1809, nanoserver21H2), longest first so that
// windowsservercore1809 reads as the whole flavour.
var gluedFlavours = []string{"windowsservercore", "servercore", "nanoserver"}

// windowsWord is the tag token that marks a Windows variant of an image
// (agent:1.4-windows-amd64), and after which vendors write the
// Windows Server year (…-windows-2022-amd64).
const windowsWord = "windows"

// yearQualifiers may stand between the windows token and the year
// (windows-nano-2025, windows-server-2022).
var yearQualifiers = map[string]bool{
	"nano": true, "core": true, "server": true,
	"nanoserver": true, "servercore": true, "windowsservercore": true,
}

// tagToken is one dash-separated token of a tag, as ImageOf reads it.
type tagToken struct {
	// word is the token in lower case, without a _KB<digits> suffix.
	word string
	// release is the part of the token that may name a release: word, or
	// what follows a glued flavour; empty for a flavour or windows alone.
	release string
	// flavour is set for a Windows Server base flavour, alone or glued.
	flavour bool
}

// ImageOf reads the Windows facts of an image reference from its tag. Only
// the tag counts, never the path: ghcr.io/acme/ltsc2019-tools:v1 and
// ghcr.io/acme/windows-exporter:v1 are not Windows images. The exceptions
// are the repositories of Microsoft's base images: a mcr.microsoft.com/windows
// repository is a Windows Server image, and a Docker Hub microsoft/ one gives
// Windows context.
//
// The tag is split at '-' into tokens, compared in any case, and a
// _KB<digits> suffix is dropped from each (1709_KB4043961 reads as 1709).
// A token counts as:
//
//   - a distinctive release (ltsc2019, sac2016, 10.0.<build>.<revision> of a
//     build some release has): in any repository;
//   - a bare release number (1809, 2009, 20H2), or a 10.0.<build>.<revision>
//     of another build from 10240 to 65535 (Insider images): only with
//     Windows context, which is one of those repositories, a flavour or a
//     windows token in the same tag;
//   - a server servicing name (21H2, 24H2): only next to a server flavour,
//     in the tag or as a mcr.microsoft.com/windows repository;
//   - a year right after the windows token, or after windows and one of
//     nano, core, server or a flavour (windows-2022, windows-nano-2025):
//     the LTSC release of that year, as the catalog's ltsc<year> token;
//     elsewhere a year is only a version.
//
// A flavour may be glued to the release it precedes (servercore1809,
// nanoserver21H2); the glued token is a flavour as well. A flavour or a
// windows token alone makes the image Windows without a build.
//
// It is an error for the reference not to parse, and a *ConflictingTagError
// for its tag to name two different builds.
func (c *Catalog) ImageOf(ref string) (Image, error) {
	named, err := reference.ParseNormalizedNamed(ref)
	if err != nil {
		return Image{}, fmt.Errorf("image %q: %w", ref, err)
	}
	domain, path := reference.Domain(named), reference.Path(named)
	windowsRepo := domain == "mcr.microsoft.com" && (path == "windows" || strings.HasPrefix(path, "windows/"))
	img := Image{Windows: windowsRepo}
	tagged, ok := named.(reference.Tagged)
	if !ok {
		return img, nil
	}

	// Docker Hub's microsoft/ repositories held Linux images too
	// (microsoft/dotnet), so they give context but do not make an image
	// Windows. Every mcr.microsoft.com/windows repository is a Windows
	// Server base image, hence a server flavour.
	windowsContext := windowsRepo || (domain == "docker.io" && strings.HasPrefix(path, "microsoft/"))
	serverFlavour := windowsRepo
	raw := strings.Split(tagged.Tag(), "-")
	tokens := make([]tagToken, len(raw))
	for i, r := range raw {
		t := c.readToken(r)
		tokens[i] = t
		switch {
		case t.flavour:
			img.Windows, windowsContext, serverFlavour = true, true, true
		case t.word == windowsWord:
			img.Windows, windowsContext = true, true
		}
	}

	for i := range tokens {
		v, need, ok := c.releaseAt(tokens, i)
		if !ok || (need == needWindowsContext && !windowsContext) || (need == needServerFlavour && !serverFlavour) {
			continue
		}
		if !img.Version.IsZero() && img.Version.Build != v.Build {
			return Image{}, &ConflictingTagError{Image: ref, First: img.Version.Build, Second: v.Build}
		}
		img.Windows = true
		if v.HasRevision || img.Version.IsZero() {
			img.Version = v
		}
	}
	return img, nil
}

// readToken reads one dash-separated token of a tag.
func (c *Catalog) readToken(raw string) tagToken {
	word := trimKB(strings.ToLower(raw))
	if flavourTokens[word] {
		return tagToken{word: word, flavour: true}
	}
	if word == windowsWord {
		return tagToken{word: word}
	}
	for _, f := range gluedFlavours {
		// Only a release-like rest makes the prefix a flavour:
		// "nanoserverless" is some other word.
		if rest, ok := strings.CutPrefix(word, f); ok && rest != "" && c.releaseLike(rest) {
			return tagToken{word: word, release: rest, flavour: true}
		}
	}
	return tagToken{word: word, release: word}
}

// releaseLike reports whether s, glued to a flavour, reads as a release:
// a token the catalog knows, or one spelled like a release number
// (nanoserver23H2 is a Windows image even where 23H2 names no build).
func (c *Catalog) releaseLike(s string) bool {
	if isBareReleaseNumber(s) {
		return true
	}
	_, _, ok := c.lookup(s)
	return ok
}

// releaseAt returns the version token i of tokens names, and what else the
// tag must show for it to count.
func (c *Catalog) releaseAt(tokens []tagToken, i int) (Version, requirement, bool) {
	t := tokens[i]
	if t.release == "" {
		return Version{}, 0, false
	}
	if isYear(t.release) && followsWindowsWord(tokens, i) {
		if b, ok := c.byToken[TokenKey("ltsc"+t.release)]; ok {
			return Version{Build: b}, needNothing, true
		}
	}
	return c.lookup(t.release)
}

// followsWindowsWord reports whether token i comes right after the windows
// token, or after it and one year qualifier.
func followsWindowsWord(tokens []tagToken, i int) bool {
	if i >= 1 && tokens[i-1].word == windowsWord {
		return true
	}
	return i >= 2 && tokens[i-2].word == windowsWord && yearQualifiers[tokens[i-1].word]
}

// isYear reports whether s is four digits.
func isYear(s string) bool {
	if len(s) != 4 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// trimKB drops the _KB<digits> suffix with which old Docker Hub tags joined
// a release and its update (1709_KB4043961); word is in lower case.
func trimKB(word string) string {
	i := strings.LastIndex(word, "_kb")
	if i <= 0 || i+len("_kb") == len(word) {
		return word
	}
	for j := i + len("_kb"); j < len(word); j++ {
		if word[j] < '0' || word[j] > '9' {
			return word
		}
	}
	return word[:i]
}
