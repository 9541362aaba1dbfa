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
