package windowsaware

import (
	"fmt"
	"testing"

	"github.com/windows-aware/windows-aware/pkg/windows"
)

func TestImageCache(t *testing.T) {
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
