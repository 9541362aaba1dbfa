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

package imageinspect

import "unsafe"

// The entry bound alone lets memory grow with what an entry holds: a
// reference of kilobytes, kept as key and aliases, or a registry's error
// text. The cache counts each entry's approximate size too, and evicts
// when either bound is passed.

// entryOverhead is what an entry costs besides its strings and
// platforms: the struct, its map slots and list element, roughly.
const entryOverhead = 512

// approxSize is the entry's size in bytes: its key, scope, pull-secret
// names, error text and platforms, and its aliases.
func (e *entry) approxSize() int {
	n := entryOverhead + len(e.ref.key) + len(e.scope) + len(e.pull.Namespace)
	for _, name := range e.pull.Names {
		n += len(name)
	}
	for _, a := range e.aliases {
		n += aliasSize(a)
	}
	n += len(e.res.Platforms)*int(unsafe.Sizeof(e.res.Platforms[0])) + len(e.res.Digest)
	if err := ErrorOf(e.res); err != nil {
		n += len(err.Image) + len(err.Host) + len(err.Detail)
	} else if e.res.Err != nil {
		n += len(e.res.Err.Error())
	}
	return n
}

// aliasSize is what one alias costs: the string, kept in the entry and
// as a key of the alias map.
func aliasSize(alias string) int { return 2*len(alias) + 64 }
