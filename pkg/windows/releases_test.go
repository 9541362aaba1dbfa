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

import (
	"slices"
	"testing"
)

// TestCatalogReleases: the names builds are called by are the known
// releases, the host-only ones, then the catalog's extra ones, so that a
// report names a build an administrator added as the scheduler reads it.
func TestCatalogReleases(t *testing.T) {
	if got, want := DefaultCatalog().Releases(), slices.Concat(KnownReleases, HostOnlyReleases); !slices.Equal(got, want) {
		t.Errorf("DefaultCatalog().Releases() = %v, want %v", got, want)
	}
	extra := []Release{{Token: "ltsc2028", Build: build10(30000)}}
	c, err := NewCatalog(extra)
	if err != nil {
		t.Fatal(err)
	}
	got := c.Releases()
	if !slices.Equal(got[len(got)-1:], extra) || len(got) != len(KnownReleases)+len(HostOnlyReleases)+1 {
		t.Errorf("Releases() = %v, want the known and host-only releases, then %v", got, extra)
	}
	got[0].Token = "changed"
	if c.Releases()[0].Token == "changed" {
		t.Error("Releases() shares its slice with the catalog")
	}
}
