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
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/crypto/bcrypt"
)

func TestWriteHtpasswd(t *testing.T) {
	path := filepath.Join(t.TempDir(), "htpasswd")
	if err := writeHtpasswd(path, "user", "secret"); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	user, hash, ok := strings.Cut(strings.TrimSpace(string(data)), ":")
	if !ok || user != "user" {
		t.Fatalf("htpasswd %q: want one line user:<hash>", data)
	}
	if err := bcrypt.CompareHashAndPassword([]byte(hash), []byte("secret")); err != nil {
		t.Errorf("the hash does not match the password: %v", err)
	}
	if err := bcrypt.CompareHashAndPassword([]byte(hash), []byte("secreT")); err == nil {
		t.Error("the hash matches a wrong password")
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
}

func TestWriteConfig(t *testing.T) {
	cases := []struct {
		name          string
		params        configParams
		wantStorage   map[string]any
		wantPlatforms string
	}{
		{
			name:          "filesystem storage, full index validation",
			params:        configParams{addr: "127.0.0.1:5000", storageDir: "/data", validateIndexFully: true},
			wantStorage:   map[string]any{"filesystem": map[string]any{"rootdirectory": "/data"}},
			wantPlatforms: "all",
		},
		{
			name:          "in memory, incomplete indexes allowed",
			params:        configParams{addr: "127.0.0.1:5000"},
			wantStorage:   map[string]any{"inmemory": map[string]any{}},
			wantPlatforms: "none",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.params.certFile, tc.params.keyFile, tc.params.htpasswdFile = "/pki/c.crt", "/pki/c.key", "/htpasswd"
			path := filepath.Join(t.TempDir(), "config.yml")
			if err := writeConfig(path, tc.params); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				HTTP struct {
					Addr string
					TLS  struct{ Certificate, Key string }
				}
				Auth       map[string]map[string]string
				Storage    map[string]any
				Validation struct {
					Manifests struct{ Indexes struct{ Platforms string } }
				}
			}
			if err := json.Unmarshal(data, &got); err != nil {
				t.Fatal(err)
			}
			if got.HTTP.Addr != "127.0.0.1:5000" || got.HTTP.TLS.Certificate != "/pki/c.crt" || got.HTTP.TLS.Key != "/pki/c.key" {
				t.Errorf("http section %+v", got.HTTP)
			}
			if got.Auth["htpasswd"]["path"] != "/htpasswd" {
				t.Errorf("auth section %+v, want htpasswd at /htpasswd", got.Auth)
			}
			for k, want := range tc.wantStorage {
				if diff := cmp.Diff(want, got.Storage[k]); diff != "" {
					t.Errorf("storage.%s (-want +got):\n%s", k, diff)
				}
			}
			if _, both := got.Storage["inmemory"]; both && got.Storage["filesystem"] != nil {
				t.Error("both storage drivers configured")
			}
			if p := got.Validation.Manifests.Indexes.Platforms; p != tc.wantPlatforms {
				t.Errorf("validation.manifests.indexes.platforms = %q, want %q", p, tc.wantPlatforms)
			}
		})
	}
}

func TestWriteDockerConfig(t *testing.T) {
	s := &Server{Host: "127.0.0.1:5000", Username: "u", Password: "p:w"}
	path := filepath.Join(t.TempDir(), "config.json")
	if err := s.WriteDockerConfig(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Auths map[string]struct{ Auth string }
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	auth, err := base64.StdEncoding.DecodeString(cfg.Auths["127.0.0.1:5000"].Auth)
	if err != nil || string(auth) != "u:p:w" {
		t.Errorf("auth for 127.0.0.1:5000 decodes to %q (%v), want %q", auth, err, "u:p:w")
	}
}

func TestRegistryEnvDropsConfigurationVariables(t *testing.T) {
	t.Setenv("REGISTRY_HTTP_ADDR", "0.0.0.0:80")
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318")
	env := strings.Join(registryEnv(), "\n")
	for _, banned := range []string{"REGISTRY_HTTP_ADDR", "OTEL_EXPORTER_OTLP_ENDPOINT"} {
		if strings.Contains(env, banned) {
			t.Errorf("the registry's environment keeps %s", banned)
		}
	}
	if !strings.Contains(env, "OTEL_TRACES_EXPORTER=none") {
		t.Error("the registry's environment does not turn tracing off")
	}
}
