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
	// token that counts, in the tag or the path; a Windows base flavour
	// (nanoserver, servercore, windowsservercore, alone or glued to a
	// release), the word windows or hostprocess as a token of its tag; or a
	// mcr.microsoft.com/windows repository.
	Windows bool
	// Version is the build (and, for 10.0.<build>.<revision> tags, the
	// revision) the image needs. It is zero when the tag names no build:
	// manifest lists that cover several builds carry none.
	Version Version
}

// ConflictingTagError is a reference that names two different builds, in
// its tag (1809-ltsc2022) or in its tag and path (app-ltsc2019:ltsc2022):
// no host can be sure to run it.
type ConflictingTagError struct {
	Image         string
	First, Second Build
}

func (e *ConflictingTagError) Error() string {
	return fmt.Sprintf("image %s: names two Windows builds, %s and %s", QuoteReference(e.Image), e.First, e.Second)
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
	// marker is set for a token that makes the image Windows without being
	// a flavour: the windows word, alone or glued to a release
	// (windows1809, windows.ltsc2019), and hostprocess.
	marker bool
	// glued is set when release follows a flavour or the windows word in
	// the same token; a year there is that year's LTSC (windows2019).
	glued bool
}

// hostProcessWord is the tag token that marks a HostProcess image
// (kube-proxy:v1.27.1-calico-hostprocess). Such an image runs on the host
// itself, on any build, so the token makes the image Windows and names no
// build; a release elsewhere in the tag still counts, for the image run as
// an ordinary container. Whether a pod runs as HostProcess is its
// securityContext's to say, not the tag's.
const hostProcessWord = "hostprocess"

// pathWindowsWords are the tokens of a repository path that show a Windows
// repository (ghcr.io/acme/windows/nanoserver, gke.gcr.io/pause-win). A path
// token is a hyphen- or underscore-separated part of one slash-separated
// segment, or the whole segment.
var pathWindowsWords = map[string]bool{
	"windows": true, "win": true,
	"nanoserver": true, "servercore": true, "windowsservercore": true,
}

// ImageOf reads the Windows facts of an image reference from its tag and,
// where it shows a Windows repository or a release, its repository path.
//
// The tag is split at '-' into tokens, compared in any case, and a
// _KB<digits> suffix is dropped from each (1709_KB4043961 reads as 1709).
// A token counts as:
//
//   - a distinctive release (ltsc2019, sac2016, 10.0.<build>.<revision> of a
//     build some release has): in any repository;
//   - a bare release number (1809, 2009, 20H2), or a 10.0.<build>.<revision>
//     of another build from 10240 to 65535 (Insider images): only with
//     Windows context, which is a mcr.microsoft.com/windows or Docker Hub
//     microsoft/ repository, a flavour, a windows or hostprocess token in the
//     same tag, or, for a tag that is that one token, a Windows repository
//     path (cirrusci/windowsservercore:2019);
//   - a server servicing name (21H2, 24H2): only next to a server flavour,
//     in the tag, as a mcr.microsoft.com/windows repository, or as a path
//     flavour for a tag that is that one token;
//   - a year: the LTSC release of that year, as the catalog's ltsc<year>
//     token, right after the windows token or a flavour, or after windows
//     and one of nano, core, server or a flavour (windows-2022,
//     windowsservercore-2022, windows-nano-2025), glued to either
//     (windows2019), or as the whole tag of a Windows repository path;
//     elsewhere a year is only a version (postgres:16-2022).
//
// A flavour or the windows word may be glued to the release it precedes,
// the windows word also with a dot (servercore1809, nanoserver21H2,
// windows1809, windows.ltsc2019). A flavour, a windows token or a
// hostprocess token makes the image Windows without a build.
//
// The path counts in two ways. Each slash-separated segment is read like a
// tag whose tokens are the segment's hyphen- or underscore-separated parts,
// with only the segment's own words as Windows context: a release there
// (nimstable-ltsc2022, windows-2019, servercore1809) is the image's build,
// and must agree with the tag's. A path token windows, win, nanoserver,
// servercore or windowsservercore marks a Windows repository: that is
// Windows context for a one-token tag, but does not by itself make the
// image Windows, since windows-exporter:v0.25.1 names no build and a Linux
// image may carry the word (dockurr/windows runs Windows in a virtual
// machine).
//
// It is an error for the reference not to parse (ErrReferenceTooLong,
// unread, past MaxReferenceLength), and a *ConflictingTagError for the
// reference to name two different builds. The errors quote the reference
// with QuoteReference.
func (c *Catalog) ImageOf(ref string) (Image, error) {
	if len(ref) > MaxReferenceLength {
		return Image{}, &referenceError{ref: ref, err: ErrReferenceTooLong}
	}
	named, err := reference.ParseNormalizedNamed(ref)
	if err != nil {
		return Image{}, &referenceError{ref: ref, err: err}
	}
	domain, path := reference.Domain(named), reference.Path(named)
	windowsRepo := domain == "mcr.microsoft.com" && (path == "windows" || strings.HasPrefix(path, "windows/"))
	img := Image{Windows: windowsRepo}
	add := func(v Version) error {
		if !img.Version.IsZero() && img.Version.Build != v.Build {
			return &ConflictingTagError{Image: ref, First: img.Version.Build, Second: v.Build}
		}
		img.Windows = true
		if v.HasRevision || img.Version.IsZero() {
			img.Version = v
		}
		return nil
	}

	// Docker Hub's microsoft/ repositories held Linux images too
	// (microsoft/dotnet), so they give context but do not make an image
	// Windows. Every mcr.microsoft.com/windows repository is a Windows
	// Server base image, hence a server flavour.
	tagCtx := context{windows: windowsRepo || (domain == "docker.io" && strings.HasPrefix(path, "microsoft/")), server: windowsRepo}
	var pathCtx context
	var pathReleases []Version
	for _, segment := range strings.Split(path, "/") {
		tokens := c.readTokens(strings.FieldsFunc(segment, isPathSeparator), true)
		ctx := contextOf(tokens)
		pathCtx.windows = pathCtx.windows || ctx.windows
		pathCtx.server = pathCtx.server || ctx.server
		for i := range tokens {
			if v, need, ok := c.releaseAt(tokens, i, false); ok && ctx.allows(need) {
				pathReleases = append(pathReleases, v)
			}
		}
	}

	if tagged, ok := named.(reference.Tagged); ok {
		tokens := c.readTokens(strings.Split(tagged.Tag(), "-"), false)
		ctx := contextOf(tokens)
		if ctx.windows {
			img.Windows = true
		}
		// A one-token tag on a Windows repository path is that
		// repository's release (cirrusci/windowsservercore:2019).
		whole := len(tokens) == 1 && pathCtx.windows
		if whole {
			ctx.windows, ctx.server = true, ctx.server || pathCtx.server
		}
		ctx.windows, ctx.server = ctx.windows || tagCtx.windows, ctx.server || tagCtx.server
		for i := range tokens {
			v, need, ok := c.releaseAt(tokens, i, whole)
			if !ok || !ctx.allows(need) {
				continue
			}
			if err := add(v); err != nil {
				return Image{}, err
			}
		}
	}
	for _, v := range pathReleases {
		if err := add(v); err != nil {
			return Image{}, err
		}
	}
	return img, nil
}

// context is what a tag, or one segment of a path, shows besides a release
// token: whether it is Windows, and whether a server flavour.
type context struct{ windows, server bool }

// contextOf is the context tokens give themselves: a flavour is a server
// flavour, and the windows and hostprocess words are Windows.
func contextOf(tokens []tagToken) context {
	var ctx context
	for _, t := range tokens {
		ctx.windows = ctx.windows || t.flavour || t.marker
		ctx.server = ctx.server || t.flavour
	}
	return ctx
}

// allows reports whether a release token with requirement need counts in
// ctx.
func (ctx context) allows(need requirement) bool {
	switch need {
	case needWindowsContext:
		return ctx.windows
	case needServerFlavour:
		return ctx.server
	}
	return true
}

// isPathSeparator splits a path segment into tokens: registries allow '-',
// '_' and '.' inside a path component, and names join words with the first
// two (nim-windows-container, pause-win, windows_exporter). A dot rather
// joins the parts of a version, so it does not separate.
func isPathSeparator(r rune) bool { return r == '-' || r == '_' }

// readTokens reads the tokens of a tag, or of a path segment (inPath),
// where win is also the windows word.
func (c *Catalog) readTokens(raw []string, inPath bool) []tagToken {
	tokens := make([]tagToken, len(raw))
	for i, r := range raw {
		tokens[i] = c.readToken(r, inPath)
	}
	return tokens
}

// readToken reads one token of a tag or path segment.
func (c *Catalog) readToken(raw string, inPath bool) tagToken {
	word := trimKB(strings.ToLower(raw))
	if flavourTokens[word] {
		return tagToken{word: word, flavour: true}
	}
	if word == windowsWord || (inPath && pathWindowsWords[word]) {
		return tagToken{word: windowsWord, marker: true}
	}
	if word == hostProcessWord && !inPath {
		return tagToken{word: word, marker: true}
	}
	for _, f := range gluedFlavours {
		// Only a release-like rest makes the prefix a flavour:
		// "nanoserverless" is some other word.
		if rest, ok := strings.CutPrefix(word, f); ok && rest != "" && c.releaseLike(rest) {
			return tagToken{word: word, release: rest, flavour: true, glued: true}
		}
	}
	// The windows word glued to a release, directly (portainer's
	// windows1809-amd64) or with a dot (octopusdeploy's windows.ltsc2019),
	// only where the rest is a release the catalog knows or an LTSC year:
	// windows10 or windows_amd64 say nothing of a build.
	if rest, ok := strings.CutPrefix(word, windowsWord); ok {
		rest = strings.TrimPrefix(rest, ".")
		if rest != "" && c.knownRelease(rest) {
			return tagToken{word: word, release: rest, marker: true, glued: true}
		}
	}
	return tagToken{word: word, release: word}
}

// knownRelease reports whether s is a token of the catalog or a year of an
// LTSC release.
func (c *Catalog) knownRelease(s string) bool {
	if _, _, ok := c.lookup(s); ok {
		return true
	}
	_, ok := c.ltscOfYear(s)
	return ok
}

// ltscOfYear returns the build of the LTSC release of year s, as the
// catalog's ltsc<year> token names it.
func (c *Catalog) ltscOfYear(s string) (Build, bool) {
	if !isYear(s) {
		return Build{}, false
	}
	b, ok := c.byToken[TokenKey("ltsc"+s)]
	return b, ok
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
// tag must show for it to count. whole says that the token is the whole tag
// of a Windows repository, where a year is that year's LTSC.
func (c *Catalog) releaseAt(tokens []tagToken, i int, whole bool) (Version, requirement, bool) {
	t := tokens[i]
	if t.release == "" {
		return Version{}, 0, false
	}
	if whole || t.glued || followsMarker(tokens, i) {
		if b, ok := c.ltscOfYear(t.release); ok {
			return Version{Build: b}, needNothing, true
		}
	}
	return c.lookup(t.release)
}

// followsMarker reports whether token i comes right after the windows
// token or a flavour, or after the windows token and one year qualifier.
func followsMarker(tokens []tagToken, i int) bool {
	if i >= 1 && tokens[i-1].release == "" && (tokens[i-1].word == windowsWord || tokens[i-1].flavour) {
		return true
	}
	return i >= 2 && tokens[i-2].word == windowsWord && tokens[i-2].release == "" && yearQualifiers[tokens[i-1].word]
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
