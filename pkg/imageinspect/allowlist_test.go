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

import "testing"

func TestAllowlisted(t *testing.T) {
	registries := []Registry{{Host: "mcr.microsoft.com"}, {Host: "*.azurecr.io"}, {Host: "registry.local:5000"}}
	tests := []struct {
		name       string
		registries []Registry
		ref        string
		want       bool
	}{
		{name: "exact host", registries: registries, ref: "mcr.microsoft.com/windows/servercore:ltsc2019", want: true},
		{name: "wildcard", registries: registries, ref: "contoso.azurecr.io/web:1.4.2", want: true},
		{name: "the wildcard's domain itself is not under it", registries: registries, ref: "azurecr.io/web:1"},
		{name: "host with port", registries: registries, ref: "registry.local:5000/app:1", want: true},
		{name: "same host, other port", registries: registries, ref: "registry.local/app:1"},
		{name: "Docker Hub is docker.io", registries: []Registry{{Host: "docker.io"}}, ref: "nginx", want: true},
		{name: "any registry", registries: []Registry{{Host: "*"}}, ref: "ghcr.io/acme/app:1", want: true},
		{name: "not listed", registries: registries, ref: "ghcr.io/acme/app:1"},
		{name: "does not parse", registries: []Registry{{Host: "*"}}, ref: "acme/App:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Allowlisted(tt.registries, tt.ref); got != tt.want {
				t.Errorf("Allowlisted(%q) = %v, want %v", tt.ref, got, tt.want)
			}
		})
	}
}
