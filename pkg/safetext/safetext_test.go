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
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// Hostile are the inputs every output is fed: ESC sequences (a cursor
// move, a colour), OSC 52 (a command put on the clipboard), BEL, CR, a
// newline, a C1 CSI, a right-to-left override.
var Hostile = []string{
	"\x1b[2K\x1b[1Aready",
	"\x1b]52;c;a3ViZWN0bCBkZWxldGUgbnMgcHJvZA==\x07",
	"bell\x07",
	"web\rfix: kubectl delete ns prod",
	"web\nDeployment prod/api  ready",
	"csi\u009b31m",
	"evil\u202etxt.exe",
}

func TestText(t *testing.T) {
	tests := []struct{ in, want string }{
		{in: "nginx:1.27", want: "nginx:1.27"},
		{in: "ünïcödé ok", want: "ünïcödé ok"},
		{in: Hostile[0], want: `\x1b[2K\x1b[1Aready`},
		{in: Hostile[1], want: `\x1b]52;c;a3ViZWN0bCBkZWxldGUgbnMgcHJvZA==\a`},
		{in: Hostile[3], want: `web\rfix: kubectl delete ns prod`},
		{in: Hostile[4], want: `web\nDeployment prod/api  ready`},
		{in: Hostile[5], want: `csi\u009b31m`},
		{in: Hostile[6], want: `evil\u202etxt.exe`},
		{in: "tab\there", want: `tab\there`},
		{in: "bad\xffutf8", want: `bad\xffutf8`},
	}
	for _, tt := range tests {
		if got := Text(tt.in); got != tt.want {
			t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := Args("a\nb", errors.New("c\x1bd"), 3); got[0] != `a\nb` || got[1] != `c\x1bd` || got[2] != 3 {
		t.Errorf("Args = %q", got)
	}
}

func TestCodeSpan(t *testing.T) {
	tests := []struct{ in, want string }{
		{in: "team-a/web", want: "`team-a/web`"},
		{in: "a`b", want: "``a`b``"},
		{in: "`start", want: "`` `start ``"},
		{in: "x|y", want: "`x\\|y`"},
		{in: "new\nline", want: "`new\\nline`"},
		{in: "", want: "`  `"},
	}
	for _, tt := range tests {
		if got := CodeSpan(tt.in); got != tt.want {
			t.Errorf("CodeSpan(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCodeBlock(t *testing.T) {
	tests := []struct{ in, want string }{
		{in: "echo '{}' | kubectl create -f -", want: "  ```sh\n  echo '{}' | kubectl create -f -\n  ```\n"},
		{in: "a ``` b", want: "  ````sh\n  a ``` b\n  ````\n"},
		{in: "new\nline", want: "  ```sh\n  new\\nline\n  ```\n"},
	}
	for _, tt := range tests {
		if got := CodeBlock(tt.in, "sh", "  "); got != tt.want {
			t.Errorf("CodeBlock(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestWriter(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		want   string
	}{
		{name: "plain, newlines and tabs kept", writes: []string{"NAME\tOK\nweb\tready\n"}, want: "NAME\tOK\nweb\tready\n"},
		{name: "OSC 52 and BEL", writes: []string{Hostile[1]}, want: `\x1b]52;c;a3ViZWN0bCBkZWxldGUgbnMgcHJvZA==\x07`},
		{name: "CR", writes: []string{"a\rb"}, want: `a\x0db`},
		{name: "a C1 control split across writes", writes: []string{"x\xc2", "\x9by"}, want: `x\u009by`},
		{name: "ü split across writes", writes: []string{"\xc3", "\xbc and \xc2", "\xa0"}, want: "ü and \u00a0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			w := NewWriter(&b)
			for _, s := range tt.writes {
				if n, err := w.Write([]byte(s)); err != nil || n != len(s) {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if b.String() != tt.want {
				t.Errorf("wrote %q, want %q", b.String(), tt.want)
			}
		})
	}
}

// FuzzText: whatever the input, Text's output holds no character that
// may not reach a terminal, is valid UTF-8, and is the input itself when
// the input was safe; the writer lets no control byte but newline and tab
// through.
func FuzzText(f *testing.F) {
	for _, s := range Hostile {
		f.Add(s)
	}
	f.Add("plain")
	f.Fuzz(func(t *testing.T, s string) {
		got := Text(s)
		if strings.ContainsFunc(got, unsafe) || !utf8.ValidString(got) {
			t.Fatalf("Text(%q) = %q", s, got)
		}
		if !strings.ContainsFunc(s, unsafe) && got != s {
			t.Fatalf("Text(%q) changed a safe string: %q", s, got)
		}
		var b bytes.Buffer
		_, _ = NewWriter(&b).Write([]byte(s))
		for _, c := range b.Bytes() {
			if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
				t.Fatalf("the writer let %#x through: %q", c, b.String())
			}
		}
		if strings.Contains(b.String(), "\u0085") || strings.Contains(b.String(), "\u009b") {
			t.Fatalf("the writer let a C1 control through: %q", b.String())
		}
		if len(CodeSpan(s)) < 2 {
			t.Fatalf("CodeSpan(%q) is no span", s)
		}
	})
}
