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

package registryserver

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
)

// Binary is the registry's file name in bin/tools, as hack/build-tools.sh
// writes it.
const Binary = "registry"

// FindBinary returns the path of the registry binary: in $TOOLS_DIR, else
// on $PATH, else in bin/tools of the repository above the working directory
// or above this source file.
func FindBinary() (string, error) {
	var looked []string
	if d := os.Getenv("TOOLS_DIR"); d != "" {
		if p := executable(filepath.Join(d, Binary)); p != "" {
			return p, nil
		}
		looked = append(looked, d)
	}
	if p, err := exec.LookPath(Binary); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs, nil
		}
		return p, nil
	}
	looked = append(looked, "$PATH")
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		starts = append(starts, filepath.Dir(file))
	}
	for _, start := range starts {
		for d := start; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "hack", "build-tools.sh")); err == nil {
				tools := filepath.Join(d, "bin", "tools")
				if p := executable(filepath.Join(tools, Binary)); p != "" {
					return p, nil
				}
				if !slices.Contains(looked, tools) {
					looked = append(looked, tools)
				}
				break
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return "", &MissingError{Looked: looked}
}

// MissingError says that FindBinary found no registry binary.
type MissingError struct {
	Looked []string
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("no %s binary (looked in %v); run `hack/build-tools.sh registry` or `make tools`", Binary, e.Looked)
}

func executable(p string) string {
	st, err := os.Stat(p)
	if err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
		return ""
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}
