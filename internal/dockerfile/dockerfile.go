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

// Package dockerfile reads a Dockerfile into its stages and instructions,
// enough for the repository's tests to hold its Dockerfile to what a
// multi-platform build needs (a build stage on the builder's platform that
// cross-compiles for each target, bases published for every target)
// without a Docker engine. It follows the Dockerfile reference's rules for
// parser directives, comments and line continuations; it does not expand
// variables or run anything.
package dockerfile

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// File is a parsed Dockerfile.
type File struct {
	// Directives are the parser directives (syntax, escape, check), by
	// lower-case name; BuildKit reads them only before the first comment,
	// blank line or instruction.
	Directives map[string]string
	// Global are the instructions before the first FROM (ARGs only).
	Global []Instruction
	Stages []Stage
}

// Stage is a FROM and the instructions up to the next one.
type Stage struct {
	From Instruction
	// Image is the base (an image reference or an earlier stage's name).
	Image string
	// Name is the stage's AS name, empty without one.
	Name string
	// Platform is the FROM's --platform flag, empty without one.
	Platform     string
	Instructions []Instruction
}

// Instruction is one logical line: its continuations joined, its comment
// lines inside the continuation dropped.
type Instruction struct {
	// Command is the upper-case keyword: FROM, RUN, ARG...
	Command string
	// Args is the rest of the line, continuations joined by a space and
	// the escape characters that ended the lines removed.
	Args string
	// Line is the 1-based line the instruction starts on.
	Line int
}

var directiveRE = regexp.MustCompile(`^#\s*([a-zA-Z][a-zA-Z0-9]*)\s*=\s*(.+?)\s*$`)

// ReadFile parses the Dockerfile at path.
func ReadFile(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Parse parses a Dockerfile's text.
func Parse(data []byte) (*File, error) {
	f := &File{Directives: map[string]string{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	escape := byte('\\')
	directives := true
	var cur *Instruction
	var lines []string
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if directives {
			if m := directiveRE.FindStringSubmatch(trimmed); m != nil {
				name := strings.ToLower(m[1])
				if _, dup := f.Directives[name]; !dup {
					f.Directives[name] = m[2]
					if name == "escape" && len(m[2]) == 1 {
						escape = m[2][0]
					}
					continue
				}
			}
			directives = false
		}
		if cur == nil {
			if trimmed == "" || strings.HasPrefix(trimmed, "#") {
				continue
			}
			command, args, _ := strings.Cut(trimmed, " ")
			cur = &Instruction{Command: strings.ToUpper(command), Line: n}
			lines = []string{strings.TrimSpace(args)}
		} else {
			// Inside a continuation, comment lines are dropped and
			// blank lines too (the reference's rules).
			if trimmed == "" || strings.HasPrefix(trimmed, "#") {
				continue
			}
			lines = append(lines, trimmed)
		}
		last := lines[len(lines)-1]
		if len(last) > 0 && last[len(last)-1] == escape {
			lines[len(lines)-1] = strings.TrimSpace(last[:len(last)-1])
			continue
		}
		cur.Args = strings.TrimSpace(strings.Join(lines, " "))
		if err := f.add(*cur); err != nil {
			return nil, err
		}
		cur = nil
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if cur != nil {
		return nil, fmt.Errorf("line %d: %s continues past the end of the file", cur.Line, cur.Command)
	}
	return f, nil
}

func (f *File) add(in Instruction) error {
	if in.Command != "FROM" {
		if len(f.Stages) == 0 {
			if in.Command != "ARG" {
				return fmt.Errorf("line %d: %s before the first FROM", in.Line, in.Command)
			}
			f.Global = append(f.Global, in)
			return nil
		}
		s := &f.Stages[len(f.Stages)-1]
		s.Instructions = append(s.Instructions, in)
		return nil
	}
	s := Stage{From: in}
	words := strings.Fields(in.Args)
	for len(words) > 0 && strings.HasPrefix(words[0], "--") {
		if v, ok := strings.CutPrefix(words[0], "--platform="); ok {
			s.Platform = v
		}
		words = words[1:]
	}
	switch {
	case len(words) == 1:
		s.Image = words[0]
	case len(words) == 3 && strings.EqualFold(words[1], "AS"):
		s.Image, s.Name = words[0], words[2]
	default:
		return fmt.Errorf("line %d: FROM %s: want [--platform=P] IMAGE [AS NAME]", in.Line, in.Args)
	}
	f.Stages = append(f.Stages, s)
	return nil
}

// Stage returns the stage named name, or nil.
func (f *File) Stage(name string) *Stage {
	for i := range f.Stages {
		if f.Stages[i].Name == name {
			return &f.Stages[i]
		}
	}
	return nil
}

// Final is the last stage: the image the build produces.
func (f *File) Final() *Stage {
	if len(f.Stages) == 0 {
		return nil
	}
	return &f.Stages[len(f.Stages)-1]
}

// Args returns the stage's ARG declarations, by name, with their default
// (hasDefault false for ARG NAME alone).
func (s *Stage) Args() map[string]Arg {
	return argsOf(s.Instructions)
}

// Arg is one ARG declaration.
type Arg struct {
	Default    string
	HasDefault bool
	Line       int
}

func argsOf(ins []Instruction) map[string]Arg {
	out := map[string]Arg{}
	for _, in := range ins {
		if in.Command != "ARG" {
			continue
		}
		for _, w := range strings.Fields(in.Args) {
			name, def, has := strings.Cut(w, "=")
			out[name] = Arg{Default: def, HasDefault: has, Line: in.Line}
		}
	}
	return out
}

// GlobalArgs returns the ARGs declared before the first FROM.
func (f *File) GlobalArgs() map[string]Arg {
	return argsOf(f.Global)
}

// Commands returns the stage's instructions of the command (RUN, COPY...).
func (s *Stage) Commands(command string) []Instruction {
	var out []Instruction
	for _, in := range s.Instructions {
		if in.Command == command {
			out = append(out, in)
		}
	}
	return out
}
