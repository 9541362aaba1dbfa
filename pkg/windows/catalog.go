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
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Release ties a token found in image tags to the Windows build it names.
type Release struct {
	Token string
	Build Build
}

func build10(number uint32) Build { return Build{Major: 10, Minor: 0, Number: number} }

// KnownReleases are the tokens Microsoft and Docker use in tags for a Windows
// release, and the build each needs (docs/windows-facts.md, from Microsoft's
// base image lifecycle page and hcsshim osversion/windowsbuilds.go).
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
	// 2009 is the ReleaseId of 20H2; MCR served servercore:2009 and
	// nanoserver:2009 for it, and hcsshim's own tests use them for V20H2.
	{"2009", build10(19042)},
	{"ltsc2022", build10(20348)},
	{"ltsc2025", build10(26100)},
}

// serverReleases are servicing names ("version 21H2") that Windows Server
// shares with Windows client releases of other builds. Only a Windows
// Server build can be a container image build, but the name alone does not
// say which product a tag meant, so these count only next to a server
// flavour (see Catalog.ImageOf).
//
//   - 21H2 is Windows Server 2022, 20348 (hcsshim V21H2Server); GitLab's
//     runner helper images spell it servercore21H2 and nanoserver21H2. On
//     clients 21H2 is Windows 10 (19044) or Windows 11 (22000).
//   - 24H2 is Windows Server 2025, 26100, the build Windows 11 24H2 shares.
//
// Left out on purpose: 22H2 (Windows 10 19045 and Windows 11 22621, client
// builds with no server release and no image) and 23H2 (Windows Server
// 25398, whose hosts run ltsc2022 images and have no images of their own,
// while Windows 11 23H2 is 22631).
var serverReleases = []Release{
	{"21H2", build10(20348)},
	{"24H2", build10(26100)},
}

// HostOnlyReleases are Windows Server releases that run as container hosts
// but have no base images of their own, so that no tag names their build
// and the tag tables leave them out; a host of such a build runs the
// images of older builds (Mode.Runs). Windows Server 23H2, 25398, runs
// ltsc2022 images (docs/windows-facts.md).
var HostOnlyReleases = []Release{
	{"23H2", build10(25398)},
}

// Catalog resolves tag tokens to builds: the known releases plus those an
// administrator adds for releases that ship after this binary.
type Catalog struct {
	byToken       map[string]Build // keyed by lower-case token
	serverByToken map[string]Build // serverReleases, keyed by lower-case token
	builds        map[Build]bool   // every build some token names
	// hosts are the builds a host may carry: builds and the
	// HostOnlyReleases'.
	hosts map[Build]bool
	// extra are the releases NewCatalog was given, for Releases.
	extra []Release
	// names are the builds' release names (ReleaseName), keyed by the
	// build as the node label spells it.
	names map[string]string
}

// NewCatalog returns a catalog of KnownReleases and extra. An extra entry may
// add a token or re-point an existing one; it is an error for a token to be
// empty, to contain a separator, or to be listed twice in extra.
func NewCatalog(extra []Release) (*Catalog, error) {
	c := &Catalog{byToken: map[string]Build{}, serverByToken: map[string]Build{}, builds: map[Build]bool{}}
	for _, r := range KnownReleases {
		c.add(r)
	}
	for _, r := range serverReleases {
		c.serverByToken[TokenKey(r.Token)] = r.Build
		c.builds[r.Build] = true
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
	c.hosts = maps.Clone(c.builds)
	for _, r := range HostOnlyReleases {
		c.hosts[r.Build] = true
	}
	c.extra = slices.Clone(extra)
	c.names = releaseNames(c.Releases())
	return c, nil
}

// Releases are the releases builds are named by, in the order a name is
// looked for: KnownReleases, HostOnlyReleases, then the extra releases of
// the catalog (an administrator's, for releases newer than this binary).
// ReleaseName names builds by them; the caller may keep the slice.
func (c *Catalog) Releases() []Release {
	return slices.Concat(KnownReleases, HostOnlyReleases, c.extra)
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

// requirement is what else a tag must show for a release token in it to
// count.
type requirement int

const (
	// needNothing: the token is distinctive (ltsc2019, sac2016, a
	// 10.0.<build>.<revision> of a known build) and counts in any
	// repository.
	needNothing requirement = iota
	// needWindowsContext: the token is also an ordinary version on Linux
	// images (1809, 2004, 20H2, an Insider's 10.0.20344.1), so it counts
	// only where the image is otherwise known to be Windows.
	needWindowsContext
	// needServerFlavour: a servicing name Windows Server shares with client
	// builds (serverReleases) counts only next to a server flavour.
	needServerFlavour
)

// lookup returns the version a single tag token names, and what else the
// tag must show for it to count. Administrator tokens come first, so that
// extraReleases may re-point any spelling, a servicing name included.
func (c *Catalog) lookup(token string) (v Version, need requirement, ok bool) {
	key := TokenKey(token)
	if b, ok := c.byToken[key]; ok {
		if isBareReleaseNumber(token) {
			return Version{Build: b}, needWindowsContext, true
		}
		return Version{Build: b}, needNothing, true
	}
	if b, ok := c.serverByToken[key]; ok {
		return Version{Build: b}, needServerFlavour, true
	}
	if v, ok := parseVersionToken(token); ok && spelledAsWindows(token, v) {
		// A build some release has is distinctive enough on its own. Any
		// other build (an Insider image's) must look like a Windows build,
		// and needs Windows context besides: "10.0.1.2" is an ordinary
		// version on countless images.
		if c.builds[v.Build] {
			return v, needNothing, true
		}
		if plausibleWindowsBuild(v.Build) {
			return v, needWindowsContext, true
		}
	}
	return Version{}, 0, false
}

// spelledAsWindows reports whether token spells v as Windows does, with no
// leading zeros: 10.0.017763.01 is some other product's version.
func spelledAsWindows(token string, v Version) bool {
	return token == v.Build.String()+"."+strconv.FormatUint(uint64(v.Revision), 10)
}

// The bounds of a build number that may stand for a Windows build in a
// 10.0.<build>.<revision> tag.
const (
	// firstWindows10Build is Windows 10's first release (1507): no
	// build of major 10, minor 0 is older.
	firstWindows10Build = 10240
	// maxWindowsBuild: Windows versions its files, the kernel's among them,
	// with 16 bits for each part.
	maxWindowsBuild = 65535
)

// plausibleWindowsBuild reports whether b can be a Windows build that runs
// containers: 10.0.<build> with build from 10240 to 65535.
func plausibleWindowsBuild(b Build) bool {
	return b.Major == 10 && b.Minor == 0 && b.Number >= firstWindows10Build && b.Number <= maxWindowsBuild
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
