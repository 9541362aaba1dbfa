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

package imageinspect

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
)

// TestTokenRealm: a registry's Bearer challenge names the token service
// the client asks next, with the credentials it holds for the registry. A
// registry allowed private addresses may name itself, its own endpoint;
// a realm on any other host must be public, even one the allowlist lets
// resolve privately (another registry, a wildcard): the token request is
// refused before it leaves, and the run fails saying so.
func TestTokenRealm(t *testing.T) {
	img := registrytest.WindowsImage(t, v17763)
	portOf := func(s *registrytest.Server) string { return s.Host()[strings.LastIndex(s.Host(), ":")+1:] }
	challenge := func(realm string) registrytest.Fault {
		return registrytest.Fault{Times: -1, Status: http.StatusUnauthorized,
			Header: http.Header{"Www-Authenticate": {`Bearer realm="` + realm + `",service="registrytest"`}}}
	}
	tests := []struct {
		name string
		// setup prepares the registry a (whose image is resolved) and the
		// other loopback server b, and returns the allowlist.
		setup     func(a, b *registrytest.Server) []Registry
		wantState State
		wantErr   string
	}{
		{
			name: "realm on the registry itself",
			setup: func(a, _ *registrytest.Server) []Registry {
				a.RequireBearer(map[string]string{goodUser: goodPassword})
				return []Registry{registryFor(a)}
			},
			wantState: StateResolved,
		},
		{
			name: "realm on the mirror endpoint itself",
			setup: func(a, _ *registrytest.Server) []Registry {
				a.RequireBearer(map[string]string{goodUser: goodPassword})
				return []Registry{{Host: "upstream.example", Endpoints: []string{a.Endpoint()}, AllowPrivate: true, Insecure: true}}
			},
			wantState: StateResolved,
		},
		{
			name: "realm on another loopback server, by name, allowlisted as a private registry",
			setup: func(a, b *registrytest.Server) []Registry {
				b.RequireBearer(map[string]string{goodUser: goodPassword})
				a.AddFault(challenge("http://localhost:" + portOf(b) + "/token"))
				return []Registry{registryFor(a), {Host: "localhost:" + portOf(b), AllowPrivate: true, Insecure: true}}
			},
			wantState: StateFailed, wantErr: "token service localhost:" + "PORT_B",
		},
		{
			name: "realm on another loopback server, under a private wildcard",
			setup: func(a, b *registrytest.Server) []Registry {
				b.RequireBearer(map[string]string{goodUser: goodPassword})
				a.AddFault(challenge("http://localhost:" + portOf(b) + "/token"))
				return []Registry{{Host: "*", AllowPrivate: true, Insecure: true}}
			},
			wantState: StateFailed, wantErr: "token service localhost:" + "PORT_B",
		},
		{
			name: "realm on another loopback server, by address",
			setup: func(a, b *registrytest.Server) []Registry {
				b.RequireBearer(map[string]string{goodUser: goodPassword})
				a.AddFault(challenge("http://" + b.Host() + "/token"))
				return []Registry{registryFor(a), {Host: b.Host(), AllowPrivate: true, Insecure: true}}
			},
			wantState: StateFailed, wantErr: "realm",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := registrytest.New(t), registrytest.New(t)
			a.Push(t, "app:1", img)
			registries := tt.setup(a, b)
			// The scheduler holds credentials for every host involved: the
			// token service would be sent them.
			config := filepath.Join(t.TempDir(), "config.json")
			hosts := []string{a.Host(), "upstream.example", b.Host(), "localhost:" + portOf(b)}
			if err := os.WriteFile(config, registrytest.DockerConfigJSON(goodUser, goodPassword, hosts...), 0o600); err != nil {
				t.Fatal(err)
			}
			h := newHarness(t, Config{Registries: registries, DockerConfigFile: config, RequestTimeout: 2 * time.Second, MaxAutoRetries: 1})
			ref := a.Ref("app:1")
			if strings.HasPrefix(registries[0].Host, "upstream.") {
				ref = "upstream.example/app:1"
			}
			res := h.await(t, ref, PullSecrets{})
			if res.State != tt.wantState {
				t.Fatalf("%v %v %v, want %v", res.State, res.Class, res.Err, tt.wantState)
			}
			if n := b.Count(http.MethodGet, "token"); n != 0 {
				t.Errorf("the other server was asked for %d tokens", n)
			}
			if tt.wantState == StateResolved {
				return
			}
			if res.Class != ClassRefused {
				t.Errorf("class %v (%v), want refused", res.Class, res.Err)
			}
			want := strings.ReplaceAll(tt.wantErr, "PORT_B", portOf(b))
			if res.Err == nil || !strings.Contains(res.Err.Error(), want) {
				t.Errorf("error %v, want one saying %q", res.Err, want)
			}
		})
	}
}
