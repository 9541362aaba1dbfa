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
	"fmt"

	"github.com/windows-aware/windows-aware/internal/testimage"
)

// UpgradeImages are private images whose tags name no Windows build,
// published for some Windows Server releases and not others, as a
// platform team finds them before moving pools from 2019 to 2022 to 2025:
// only the registry tells which the new build runs. Builds lists each
// image's Windows builds, for tests to hold a plan against.
var UpgradeImages = []DemoImage{
	{
		// Built on Windows Server 2019 only: every newer build needs a rebuild.
		Repository: "contoso/billing", Tag: "3.1",
		Spec:   testimage.Spec{Flavour: testimage.Docker, Entries: []testimage.Entry{testimage.Windows(testimage.OSVersion2019)}},
		Builds: []string{"10.0.17763"},
	},
	{
		// 2019 and 2022: a 2022 host runs the 2022 entry, a 2025 host too.
		Repository: "contoso/portal", Tag: "2.0",
		Spec: testimage.Spec{Flavour: testimage.Docker, Index: true, Entries: []testimage.Entry{
			testimage.Windows(testimage.OSVersion2019),
			testimage.Windows(testimage.OSVersion2022),
		}},
		Builds: []string{"10.0.17763", "10.0.20348"},
	},
	{
		// 2022 and 2025, as BuildKit pushes it.
		Repository: "contoso/search", Tag: "5.0",
		Spec: testimage.Spec{Flavour: testimage.OCI, Index: true, Entries: []testimage.Entry{
			{OS: "windows", Arch: "amd64", OSVersion: testimage.OSVersion2022, Attested: true},
			{OS: "windows", Arch: "amd64", OSVersion: testimage.OSVersion2025, Attested: true},
		}},
		Builds: []string{"10.0.20348", "10.0.26100"},
	},
	{
		// Built on Windows Server 2025 only: a 2022 host does not run it.
		Repository: "contoso/ledger", Tag: "1.0",
		Spec:   testimage.Spec{Flavour: testimage.OCI, Entries: []testimage.Entry{testimage.Windows(testimage.OSVersion2025)}},
		Builds: []string{"10.0.26100"},
	},
}

// PushUpgradeImages pushes UpgradeImages into the registry and returns
// them as pushed, in the same order.
func (s *Server) PushUpgradeImages(ctx context.Context) ([]PushedImage, error) {
	var out []PushedImage
	for _, img := range UpgradeImages {
		a, err := img.Spec.Build()
		if err != nil {
			return nil, fmt.Errorf("building %s: %w", img.Repository, err)
		}
		tagged := img.Repository + ":" + img.Tag
		digest, err := s.Push(ctx, tagged, a)
		if err != nil {
			return nil, err
		}
		out = append(out, PushedImage{DemoImage: img, Reference: s.Host + "/" + tagged, Digest: digest})
	}
	return out, nil
}
