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

package windows_test

import (
	"testing"

	"github.com/windows-aware/windows-aware/internal/oracle"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// TestImageOfAgreesWithOracle holds the tag reading to the oracle's images
// of each spelling and release, which it writes by hand from the facts: a
// Windows image of one build reads as that build, a HostProcess image as
// Windows without a build, and a Linux image never as Windows.
func TestImageOfAgreesWithOracle(t *testing.T) {
	cases := append([]oracle.Spelling(nil), oracle.Spellings...)
	for _, r := range oracle.Releases {
		cases = append(cases, oracle.Spelling{Image: r.Image, Need: oracle.Need{OS: oracle.Windows, Build: r.Build}})
	}
	c := windows.DefaultCatalog()
	for _, tt := range cases {
		t.Run(tt.Image, func(t *testing.T) {
			img, err := c.ImageOf(tt.Image)
			if err != nil {
				t.Fatalf("ImageOf(%q): %v", tt.Image, err)
			}
			build := ""
			if !img.Version.IsZero() {
				build = img.Version.Build.String()
			}
			if img.Windows != (tt.Need.OS == oracle.Windows) || build != tt.Need.Build {
				t.Errorf("ImageOf(%q) = %+v, the oracle says %+v", tt.Image, img, tt.Need)
			}
		})
	}
}
