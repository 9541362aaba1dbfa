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
	"errors"
	"strings"
	"sync"

	"github.com/windows-aware/windows-aware/pkg/windows"
)

// maxCachedImages and maxCachedImageBytes bound the image cache; when
// either would be passed it starts over. A cluster runs far fewer distinct
// images than this, and a reference that parses is at most
// windows.MaxReferenceLength bytes, so the bytes bound only matters when
// a namespace floods the scheduler with unique long ones.
const (
	maxCachedImages     = 4096
	maxCachedImageBytes = 1 << 20
)

// imageCache remembers what each image reference says, so that the pods of
// a workload, which share their images, parse each reference once rather
// than on every scheduling attempt and queueing hint. It keeps only
// references that parse: one that does not is any string a pod carries
// (megabytes, for all Kubernetes checks), read again each time at the
// cost of a length check or a parse of at most
// windows.MaxReferenceLength bytes, and gone with the pod.
type imageCache struct {
	mu      sync.Mutex
	catalog *windows.Catalog
	images  map[string]cachedImage
	// bytes is the length of the references images holds.
	bytes int
}

type cachedImage struct {
	image windows.Image
	err   error
}

func newImageCache(catalog *windows.Catalog) *imageCache {
	return &imageCache{catalog: catalog, images: map[string]cachedImage{}}
}

// imageOf is catalog.ImageOf, remembered for a reference that parses
// (a *windows.ConflictingTagError included).
func (c *imageCache) imageOf(ref string) (windows.Image, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if hit, ok := c.images[ref]; ok {
		return hit.image, hit.err
	}
	img, err := c.catalog.ImageOf(ref)
	var conflicting *windows.ConflictingTagError
	if err != nil && !errors.As(err, &conflicting) {
		return img, err
	}
	if len(c.images) >= maxCachedImages || c.bytes+len(ref) > maxCachedImageBytes {
		clear(c.images)
		c.bytes = 0
	}
	// A copy: the key must not hold on to whatever buffer the pod's
	// string shares.
	c.images[strings.Clone(ref)] = cachedImage{img, err}
	c.bytes += len(ref)
	return img, err
}
