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
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStartFailsWithTheLog(t *testing.T) {
	dir := t.TempDir()
	// A "registry" that exits at once.
	fake := filepath.Join(dir, "registry")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho 'configuration error: nope' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Start(context.Background(), Options{Binary: fake, Dir: filepath.Join(dir, "r")})
	if err == nil || !strings.Contains(err.Error(), "exited") || !strings.Contains(err.Error(), "configuration error: nope") {
		t.Errorf("Start with a failing binary: %v; want an error saying it exited, with its log", err)
	}
}
