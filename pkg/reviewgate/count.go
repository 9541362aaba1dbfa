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

package reviewgate

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// Counts is what a review's raw JSON holds that sets the cost of reading
// it typed.
type Counts struct {
	// Containers is the number of objects in every array named
	// containers, initContainers or ephemeralContainers, at any depth: a
	// pod's, a template's, a CronJob's job template's, in the object and
	// the old object alike.
	Containers int
	// ImageBytes is the length of the image strings of those containers.
	ImageBytes int
}

// containerArrays are the keys under which a pod spec lists containers.
var containerArrays = map[string]bool{"containers": true, "initContainers": true, "ephemeralContainers": true}

// Count walks raw, token by token, holding only the path to the current
// token, and stops as soon as the counts pass limit (a zero field of
// limit: no limit on it), so that a hostile review costs a scan of its
// bytes and nothing that grows with its containers. It does not check
// the JSON beyond what the walk needs: what does not decode fails in the
// handler's own decode after.
func Count(raw []byte, limit Counts) (Counts, error) {
	var c Counts
	dec := json.NewDecoder(bytes.NewReader(raw))
	// frame is one open object or array on the way to the current token.
	type frame struct {
		array bool
		// containers: an array under a containerArrays key.
		containers bool
		// container: an object directly in such an array.
		container bool
		// key is the object's last key; valueNext, whether a value of it
		// comes next.
		key       string
		valueNext bool
	}
	var stack []frame
	// value marks the end of a value in the enclosing object.
	value := func() {
		if n := len(stack); n > 0 && !stack[n-1].array {
			stack[n-1].valueNext = false
		}
	}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			if len(stack) > 0 {
				return c, io.ErrUnexpectedEOF
			}
			return c, nil
		}
		if err != nil {
			return c, err
		}
		var top *frame
		if n := len(stack); n > 0 {
			top = &stack[n-1]
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				f := frame{container: top != nil && top.containers}
				if f.container {
					c.Containers++
					if limit.Containers > 0 && c.Containers > limit.Containers {
						return c, nil
					}
				}
				stack = append(stack, f)
			case '[':
				stack = append(stack, frame{array: true, containers: top != nil && !top.array && containerArrays[top.key]})
			default: // '}' or ']'
				stack = stack[:len(stack)-1]
				value()
			}
		case string:
			if top != nil && !top.array && !top.valueNext {
				top.key, top.valueNext = t, true
				continue
			}
			if top != nil && top.container && top.key == "image" {
				c.ImageBytes += len(t)
				if limit.ImageBytes > 0 && c.ImageBytes > limit.ImageBytes {
					return c, nil
				}
			}
			value()
		default:
			value()
		}
	}
}
