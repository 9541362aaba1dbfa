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

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// An index of maxManifestBytes holds tens of thousands of entries, and
// whoever pushes an image writes its index. The resolver reads at most
// MaxIndexEntries of them for one image, nested indexes counted together,
// and refuses the image past that: its pods then follow onFailure, with an
// Event that names the count and the limit. The entries are decoded one
// at a time, so that an index over the limit never costs more than the
// limit's worth of decoded entries.

// maxIndexEntriesArg is the plugin arg that sets the limit, named in the
// error so that an administrator knows what to raise.
const maxIndexEntriesArg = "imageResolution.maxIndexEntries"

// entryBudget counts the index entries of one image.
type entryBudget struct {
	limit int
	seen  int
}

// tooManyEntries is the error of an image whose index has more entries
// than the limit: count were counted, and more may follow when atLeast
// (nested indexes left unread once the limit was passed). It names the
// arg, so that an administrator knows what to raise.
func tooManyEntries(count int, atLeast bool, limit int) error {
	n := fmt.Sprint(count)
	if atLeast {
		n = "at least " + n
	}
	return invalidf("image index has %s entries, more than the limit of %d (%s)", n, limit, maxIndexEntriesArg)
}

// decodeIndexEntries reads the entries ("manifests") of an image index,
// counting them against b. Past the limit it keeps none and only counts
// the rest of this index, to name the count. Other fields are checked for
// syntax and skipped: nothing else of an index names a platform.
func decodeIndexEntries(manifest []byte, b *entryBudget) ([]v1.Descriptor, error) {
	before := b.seen
	dec := json.NewDecoder(bytes.NewReader(manifest))
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	var entries []v1.Descriptor
	over := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, invalidf("image index: %v", err)
		}
		key, _ := tok.(string)
		// encoding/json, which v1.ParseIndexManifest uses, matches keys
		// in any case; so does this.
		if !strings.EqualFold(key, "manifests") {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, invalidf("image index: %v", err)
			}
			continue
		}
		// A repeated key replaces the earlier list, as in encoding/json;
		// its entries still counted.
		entries = entries[:0]
		tok, err = dec.Token()
		if err != nil {
			return nil, invalidf("image index: %v", err)
		}
		if tok == nil {
			continue // "manifests": null
		}
		if d, ok := tok.(json.Delim); !ok || d != '[' {
			return nil, invalidf("image index: manifests is not a list")
		}
		for dec.More() {
			b.seen++
			if b.seen > b.limit {
				over = true
				var skip struct{}
				if err := dec.Decode(&skip); err != nil {
					return nil, invalidf("image index: %v", err)
				}
				continue
			}
			var d v1.Descriptor
			if err := dec.Decode(&d); err != nil {
				return nil, invalidf("image index: %v", err)
			}
			entries = append(entries, d)
		}
		if err := expectDelim(dec, ']'); err != nil {
			return nil, err
		}
		if over {
			return nil, tooManyEntries(b.seen, before > 0, b.limit)
		}
	}
	if err := expectDelim(dec, '}'); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, invalidf("image index: data after the index")
	}
	return entries, nil
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return invalidf("image index: %v", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return invalidf("image index: want %q, got %v", want, tok)
	}
	return nil
}
