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

package podneeds

import (
	"fmt"
	"strings"
	"testing"

	"github.com/windows-aware/windows-aware/pkg/windows"
)

func TestImageCache(t *testing.T) {
	const (
		img2019    = "mcr.microsoft.com/windows/servercore:ltsc2019"
		img2019Rev = "mcr.microsoft.com/windows/servercore:10.0.17763.437"
		img2022    = "mcr.microsoft.com/windows/nanoserver:ltsc2022"
		imgLinux   = "nginx:1.27"
	)
	catalog := windows.DefaultCatalog()
	c := newImageCache(catalog)
	for _, ref := range []string{img2019, img2022, imgLinux, "Not A Reference", img2019Rev, img2019} {
		got, gotErr := c.imageOf(ref)
		want, wantErr := catalog.ImageOf(ref)
		if got != want || (gotErr == nil) != (wantErr == nil) {
			t.Errorf("imageOf(%q) = %+v, %v; want %+v, %v", ref, got, gotErr, want, wantErr)
		}
	}
	for i := range maxCachedImages + 10 {
		c.imageOf(fmt.Sprintf("acme/app:%d", i))
	}
	if n := len(c.images); n > maxCachedImages {
		t.Errorf("the cache holds %d images, more than %d", n, maxCachedImages)
	}
	if img, _ := c.imageOf(img2019); img.Version.Build.Number != 17763 {
		t.Errorf("after starting over: %+v", img)
	}
}

// TestImageCacheKeepsOnlyWhatParses: a reference that does not parse is
// read again each time and never kept (a tenant's unique megabyte image
// strings would otherwise stay after their pods are gone), a conflicting
// one is kept, and the references kept stay under maxCachedImageBytes.
func TestImageCacheKeepsOnlyWhatParses(t *testing.T) {
	tests := []struct {
		name string
		ref  string
		kept bool
	}{
		{name: "parses", ref: "mcr.microsoft.com/windows/servercore:ltsc2019", kept: true},
		{name: "names two builds", ref: "acme/app:1809-ltsc2022", kept: true},
		{name: "does not parse", ref: "Not A Reference", kept: false},
		{name: "too long to parse", ref: "acme/app:" + strings.Repeat("x", 1<<20), kept: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newImageCache(windows.DefaultCatalog())
			c.imageOf(tt.ref)
			c.imageOf(tt.ref)
			if _, kept := c.images[tt.ref]; kept != tt.kept {
				t.Errorf("kept = %v, want %v", kept, tt.kept)
			}
			if c.bytes > maxCachedImageBytes {
				t.Errorf("the cache holds %d bytes of references", c.bytes)
			}
		})
	}

	c := newImageCache(windows.DefaultCatalog())
	long := strings.Repeat("a", 200)
	for i := range 2 * maxCachedImageBytes / len(long) {
		c.imageOf(fmt.Sprintf("registry.example.com/%s:%d", long, i))
		if c.bytes > maxCachedImageBytes {
			t.Fatalf("after %d references the cache holds %d bytes, more than %d", i+1, c.bytes, maxCachedImageBytes)
		}
	}
}
