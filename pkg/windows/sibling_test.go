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

package windows

import "testing"

// TestSiblingTag: the tag token that names a build is respelled for the
// target as publishers spell their variants; a tag with no build, with the
// target already, or with its release glued or in the path has none.
func TestSiblingTag(t *testing.T) {
	c := DefaultCatalog()
	tests := []struct {
		ref    string
		target Build
		want   string
	}{
		{"mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019", build10(20348), "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022"},
		{"mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019", build10(26100), "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2025"},
		{"mcr.microsoft.com/dotnet/aspnet:8.0-nanoserver-1809", build10(20348), "mcr.microsoft.com/dotnet/aspnet:8.0-nanoserver-ltsc2022"},
		{"jetbrains/teamcity-agent:2025.03.2-windowsservercore-2019", build10(20348), "jetbrains/teamcity-agent:2025.03.2-windowsservercore-2022"},
		{"registry.example.com:5000/app:1.0-ltsc2019-amd64", build10(26100), "registry.example.com:5000/app:1.0-ltsc2025-amd64"},
		{"mcr.microsoft.com/windows/servercore:ltsc2022", build10(20348), ""},
		{"contoso/orders-api:1.4.2", build10(20348), ""},
		{"portainer/agent:windows1809-amd64", build10(20348), ""},
		{"ghcr.io/acme/nimstable-ltsc2019:latest", build10(20348), ""},
		{"mcr.microsoft.com/windows/servercore:ltsc2019", build10(25398), ""}, // 23H2 has no images of its own
	}
	for _, tt := range tests {
		got, ok := c.SiblingTag(tt.ref, tt.target)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("SiblingTag(%q, %s) = %q, %v; want %q", tt.ref, tt.target, got, ok, tt.want)
		}
	}
}
