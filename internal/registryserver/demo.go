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
	"path/filepath"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/windows-aware/windows-aware/internal/testimage"
)

// DemoImage is an image make demo pushes to its registry: a private image
// whose tag names no Windows build, so that only the registry can tell
// which Windows hosts run it.
type DemoImage struct {
	// Repository and Tag name it in the registry ("contoso/orders-api",
	// "1.4.2").
	Repository, Tag string
	Spec            testimage.Spec
	// Builds are the Windows builds (major.minor.build) its Windows
	// entries were built on, for the demo to print and check against.
	Builds []string
}

// DemoImages are the images StartDemo pushes: a service built on Windows
// Server 2019, one built on 2022, and a multi-platform agent published for
// Linux and both Windows releases, as BuildKit pushes it (OCI index with
// attestations).
var DemoImages = []DemoImage{
	{
		Repository: "contoso/orders-api", Tag: "1.4.2",
		Spec:   testimage.Spec{Flavour: testimage.Docker, Entries: []testimage.Entry{testimage.Windows(testimage.OSVersion2019)}},
		Builds: []string{"10.0.17763"},
	},
	{
		Repository: "contoso/inventory", Tag: "2.0",
		Spec:   testimage.Spec{Flavour: testimage.OCI, Entries: []testimage.Entry{testimage.Windows(testimage.OSVersion2022)}},
		Builds: []string{"10.0.20348"},
	},
	{
		Repository: "contoso/agent", Tag: "1.0",
		Spec: testimage.Spec{Flavour: testimage.OCI, Index: true, Entries: []testimage.Entry{
			{OS: "linux", Arch: "amd64", Attested: true},
			testimage.Windows(testimage.OSVersion2019),
			testimage.Windows(testimage.OSVersion2022),
		}},
		Builds: []string{"10.0.17763", "10.0.20348"},
	},
}

// Demo is the registry of make demo with DemoImages pushed.
type Demo struct {
	*Server
	// DockerConfigFile holds the registry's credentials as a Docker
	// config.json, for the scheduler to read.
	DockerConfigFile string
	// Images are DemoImages as pushed, in the same order.
	Images []PushedImage
}

// PushedImage is a DemoImage in the registry.
type PushedImage struct {
	DemoImage
	// Reference is "<Host>/<Repository>:<Tag>", as a pod names it.
	Reference string
	// Digest is its reference by digest.
	Digest name.Digest
}

// StartDemo starts a registry with opts (make demo passes a Dir, a
// PIDFile and Detach) and pushes DemoImages into it. On error it stops
// the registry.
func StartDemo(ctx context.Context, opts Options) (*Demo, error) {
	s, err := Start(ctx, opts)
	if err != nil {
		return nil, err
	}
	d := &Demo{Server: s, DockerConfigFile: filepath.Join(s.Dir, "docker-config.json")}
	if err := d.push(ctx); err != nil {
		_ = s.Stop()
		return nil, err
	}
	return d, nil
}

func (d *Demo) push(ctx context.Context) error {
	if err := d.WriteDockerConfig(d.DockerConfigFile); err != nil {
		return err
	}
	for _, img := range DemoImages {
		a, err := img.Spec.Build()
		if err != nil {
			return fmt.Errorf("building %s: %w", img.Repository, err)
		}
		tagged := img.Repository + ":" + img.Tag
		digest, err := d.Push(ctx, tagged, a)
		if err != nil {
			return err
		}
		d.Images = append(d.Images, PushedImage{DemoImage: img, Reference: d.Host + "/" + tagged, Digest: digest})
	}
	return nil
}
