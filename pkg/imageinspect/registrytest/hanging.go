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

package registrytest

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Hanging serves, on loopback over TLS, a registry that takes every
// request and never answers it, until the test ends: the stalled registry
// of the tests that bound a wait. It returns its host and the file of its
// CA, for an allowlist entry with allowPrivate.
func Hanging(t testing.TB) (host, caFile string) {
	t.Helper()
	hang := httptest.NewTLSServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	t.Cleanup(func() {
		hang.CloseClientConnections()
		hang.Close()
	})
	caFile = filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hang.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(hang.URL, "https://"), caFile
}
