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

package safetext

import (
	"fmt"
	"io"
)

// NewWriter returns a writer to w that escapes every C0 control byte but
// newline and tab, and DEL, in the \x1b form, and the C1 controls as
// UTF-8 writes them (U+0080 to U+009F, some terminals' 8-bit CSI among
// them) in the \u009b form, and passes every other byte as it is.
// Structured output (JSON, YAML) passes unchanged: their encoders escape
// control characters already.
func NewWriter(w io.Writer) io.Writer { return &writer{w: w} }

type writer struct {
	w io.Writer
	// lead is set when the last byte written was 0xC2, the first byte of
	// a C1 control in UTF-8, held back until the next byte tells.
	lead bool
	buf  []byte
}

func (sw *writer) Write(p []byte) (int, error) {
	sw.buf = sw.buf[:0]
	for _, c := range p {
		if sw.lead {
			sw.lead = false
			if c >= 0x80 && c <= 0x9f {
				sw.buf = fmt.Appendf(sw.buf, `\u%04x`, c)
				continue
			}
			sw.buf = append(sw.buf, 0xc2)
		}
		switch {
		case c == 0xc2:
			sw.lead = true
		case c == '\n' || c == '\t':
			sw.buf = append(sw.buf, c)
		case c < 0x20 || c == 0x7f:
			sw.buf = fmt.Appendf(sw.buf, `\x%02x`, c)
		default:
			sw.buf = append(sw.buf, c)
		}
	}
	if _, err := sw.w.Write(sw.buf); err != nil {
		return 0, err
	}
	return len(p), nil
}
