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
	// token in its tag, a Windows base flavour (nanoserver, servercore,
	// windowsservercore) in its tag, or a mcr.microsoft.com/windows
	// repository.
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

// flavourTokens name a Windows base image in a tag
// (golang:1.22-windowsservercore-ltsc2022, dotnet/aspnet:8.0-nanoserver-1809).
var flavourTokens = map[string]bool{"nanoserver": true, "servercore": true, "windowsservercore": true}

// ImageOf reads the Windows facts of an image reference from its tag. Only
// the tag counts, never the path: ghcr.io/acme/ltsc2019-tools:v1 is not a
// Windows image. It is an error for the reference not to parse, and a
// *ConflictingTagError for its tag to name two different builds.
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
	tokens := strings.Split(tagged.Tag(), "-")

	// A bare release number counts only where the repository or another
	// token shows the image is Windows.
	windowsContext := windowsRepo || (domain == "docker.io" && strings.HasPrefix(path, "microsoft/"))
	for _, t := range tokens {
		lower := strings.ToLower(t)
		if flavourTokens[lower] {
			img.Windows = true
			windowsContext = true
		} else if lower == "windows" {
			windowsContext = true
		}
	}

	for _, t := range tokens {
		b, distinctive, ok := c.lookup(t)
		if !ok || (!distinctive && !windowsContext) {
			continue
		}
		if !img.Version.IsZero() && img.Version.Build != b {
			return Image{}, &ConflictingTagError{Image: ref, First: img.Version.Build, Second: b}
		}
		img.Windows = true
		if v, isVersion := parseVersionToken(t); isVersion {
			img.Version = v
		} else if img.Version.IsZero() {
			img.Version = Version{Build: b}
		}
	}
	return img, nil
}
