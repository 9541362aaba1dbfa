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

package kubectlcmd

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/windows-aware/windows-aware/pkg/explain"
)

// manifestExtensions are the files of a directory that are read.
var manifestExtensions = []string{".yaml", ".yml", ".json"}

// readManifests reads a file, the manifest files of a directory, or
// standard input for "-".
func readManifests(path string, stdin io.Reader) ([]explain.Object, []explain.Skipped, error) {
	if path == "-" {
		return explain.ReadManifests(stdin, "-")
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	files := []string{path}
	if info.IsDir() {
		entries, err := os.ReadDir(path)
		if err != nil {
			return nil, nil, err
		}
		files = nil
		for _, e := range entries {
			if !e.IsDir() && slices.Contains(manifestExtensions, strings.ToLower(filepath.Ext(e.Name()))) {
				files = append(files, filepath.Join(path, e.Name()))
			}
		}
	}
	var objects []explain.Object
	var skipped []explain.Skipped
	for _, f := range files {
		objs, skips, err := readFile(f)
		if err != nil {
			return nil, nil, err
		}
		objects, skipped = append(objects, objs...), append(skipped, skips...)
	}
	return objects, skipped, nil
}

func readFile(path string) ([]explain.Object, []explain.Skipped, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return explain.ReadManifests(f, path)
}
