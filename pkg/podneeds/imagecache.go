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
	"sync"

	"github.com/windows-aware/windows-aware/pkg/windows"
)

// maxCachedImages bounds the image cache; when full it starts over. A
// cluster runs far fewer distinct images than this.
const maxCachedImages = 4096

// imageCache remembers what each image reference says, so that the pods of
// a workload, which share their images, parse each reference once rather
// than on every scheduling attempt and queueing hint.
type imageCache struct {
	mu      sync.Mutex
	catalog *windows.Catalog
	images  map[string]cachedImage
}

type cachedImage struct {
	image windows.Image
	err   error
}

func newImageCache(catalog *windows.Catalog) *imageCache {
	return &imageCache{catalog: catalog, images: map[string]cachedImage{}}
}

// imageOf is catalog.ImageOf, remembered.
func (c *imageCache) imageOf(ref string) (windows.Image, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if hit, ok := c.images[ref]; ok {
		return hit.image, hit.err
	}
	img, err := c.catalog.ImageOf(ref)
	if len(c.images) >= maxCachedImages {
		clear(c.images)
	}
	c.images[ref] = cachedImage{img, err}
	return img, err
}
