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

package windowsaware

import (
	"strings"
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
	// facts remembers what is read of the platform lists the resolver
	// stores, by the list's identity: the resolver never changes a list
	// it has handed out, and every pod of an image gets the same one, so
	// PreFilter and the queueing hints read an index's entries once, not
	// once per pod and attempt.
	facts map[platformsKey]platformFacts
}

// platformsKey is a platform list's identity: its first element and its
// length.
type platformsKey struct {
	first *windows.Platform
	n     int
}

// platformFacts is what the decisions read of an image's platforms.
type platformFacts struct {
	linux, win bool
	// newest is the newest build a Windows platform names; zero when none
	// names one.
	newest windows.Build
}

// factsOf reads platforms, or remembers what it read of this very list.
// Lists of one platform (a tag's) are read each time: that is as cheap
// as the lookup.
func (c *imageCache) factsOf(platforms []windows.Platform) platformFacts {
	if len(platforms) <= 1 {
		return readPlatformFacts(platforms)
	}
	key := platformsKey{&platforms[0], len(platforms)}
	c.mu.Lock()
	f, ok := c.facts[key]
	c.mu.Unlock()
	if ok {
		return f
	}
	f = readPlatformFacts(platforms)
	c.mu.Lock()
	if len(c.facts) >= maxCachedImages {
		clear(c.facts)
	}
	c.facts[key] = f
	c.mu.Unlock()
	return f
}

func readPlatformFacts(platforms []windows.Platform) platformFacts {
	var f platformFacts
	for i := range platforms {
		p := &platforms[i]
		switch {
		case strings.EqualFold(p.OS, windows.OSLinux):
			f.linux = true
		case strings.EqualFold(p.OS, windows.OSWindows):
			f.win = true
			if b := p.Version.Build; !b.IsZero() && b.Compare(f.newest) > 0 {
				f.newest = b
			}
		}
	}
	return f
}

type cachedImage struct {
	image windows.Image
	err   error
}

func newImageCache(catalog *windows.Catalog) *imageCache {
	return &imageCache{catalog: catalog, images: map[string]cachedImage{}, facts: map[platformsKey]platformFacts{}}
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
