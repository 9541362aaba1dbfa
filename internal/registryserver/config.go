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
	"encoding/json"
	"fmt"
	"os"

	"golang.org/x/crypto/bcrypt"
)

// registryConfig is the part of the registry's configuration file
// (configuration.Configuration of distribution v3) that the harness sets.
// The registry reads YAML, of which JSON is a subset.
type registryConfig struct {
	Version    string         `json:"version"`
	Log        logConfig      `json:"log"`
	Storage    map[string]any `json:"storage"`
	HTTP       httpConfig     `json:"http"`
	Auth       map[string]any `json:"auth"`
	Validation map[string]any `json:"validation"`
}

type logConfig struct {
	Level     string         `json:"level"`
	AccessLog map[string]any `json:"accesslog"`
}

type httpConfig struct {
	Addr   string    `json:"addr"`
	Secret string    `json:"secret"`
	TLS    tlsConfig `json:"tls"`
}

type tlsConfig struct {
	Certificate string `json:"certificate"`
	Key         string `json:"key"`
	MinimumTLS  string `json:"minimumtls"`
}

// configParams are the values a configuration file is written from.
type configParams struct {
	addr               string
	certFile, keyFile  string
	htpasswdFile       string
	storageDir         string // empty: in memory
	httpSecret         string
	accessLog          bool
	validateIndexFully bool
}

func writeConfig(path string, p configParams) error {
	storage := map[string]any{
		"delete": map[string]any{"enabled": true},
		// The upload purger walks the storage every few hours: nothing to
		// purge in a registry that lives for one test run.
		"maintenance": map[string]any{"uploadpurging": map[string]any{"enabled": false}},
	}
	if p.storageDir == "" {
		storage["inmemory"] = map[string]any{}
	} else {
		storage["filesystem"] = map[string]any{"rootdirectory": p.storageDir}
	}
	cfg := registryConfig{
		Version: "0.1",
		Log: logConfig{
			Level:     "info",
			AccessLog: map[string]any{"disabled": !p.accessLog},
		},
		Storage: storage,
		HTTP: httpConfig{
			Addr: p.addr,
			// A fixed secret keeps upload state valid across restarts of
			// the same registry (Restart); the registry makes a random one,
			// with a warning, when it is empty.
			Secret: p.httpSecret,
			TLS:    tlsConfig{Certificate: p.certFile, Key: p.keyFile, MinimumTLS: "tls1.2"},
		},
		Auth: map[string]any{
			"htpasswd": map[string]any{"realm": "windows-aware-test-registry", "path": p.htpasswdFile},
		},
		Validation: map[string]any{
			"manifests": map[string]any{
				"indexes": map[string]any{
					// "all": every manifest an index names must be in the
					// repository, the registry's default, and what public
					// registries enforce.
					"platforms": platformsPolicy(p.validateIndexFully),
				},
			},
		},
	}
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}

func platformsPolicy(all bool) string {
	if all {
		return "all"
	}
	return "none"
}

// htpasswdCost is the bcrypt cost of the generated password file. The
// registry checks the password on every request; at bcrypt's default cost
// (10) that is tens of milliseconds of CPU per request, which would blur
// the latencies the tests measure. The file only guards a loopback test
// registry.
const htpasswdCost = bcrypt.MinCost

// writeHtpasswd writes an htpasswd file with one bcrypt entry, the only
// hash the registry accepts.
func writeHtpasswd(path, user, password string) error {
	hash, err := bcrypt.GenerateFromPassword([]byte(password), htpasswdCost)
	if err != nil {
		return err
	}
	return os.WriteFile(path, fmt.Appendf(nil, "%s:%s\n", user, hash), 0o600)
}
