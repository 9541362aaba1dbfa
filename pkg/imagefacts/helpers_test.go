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

package imagefacts

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/apis/config/scheme"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
)

const (
	imgLinux    = "nginx:1.27"
	imgNano     = "golang:1.22-nanoserver" // Windows, no build
	img2019     = "mcr.microsoft.com/windows/servercore:ltsc2019"
	img2022     = "mcr.microsoft.com/windows/nanoserver:ltsc2022"
	imgWinNoTag = "mcr.microsoft.com/dotnet/framework/aspnet:4.8" // a manifest list: no build

	// The os.version of Windows images the test registry serves.
	osv2019 = "10.0.17763.5329"
	osv2022 = "10.0.20348.2227"
)

// pod is a pod of namespace default with one container per image.
func pod(images ...string) *v1.Pod {
	p := fixture.Pod("p", "", images...)
	p.Namespace, p.UID = "default", "p"
	return p
}

// withOS sets the pod's .spec.os.name.
func withOS(p *v1.Pod, os v1.OSName) *v1.Pod {
	p.Spec.OS = &v1.PodOS{Name: os}
	return p
}

// defaultArgs are the args a configuration that leaves them out gets, as
// mutate changes them.
func defaultArgs(mutate ...func(*config.WindowsAwareArgs)) *config.WindowsAwareArgs {
	a := scheme.DefaultArgs()
	for _, m := range mutate {
		m(a)
	}
	return a
}

func decider(t *testing.T, args *config.WindowsAwareArgs) *podneeds.Decider {
	t.Helper()
	dr, err := podneeds.New(args)
	if err != nil {
		t.Fatal(err)
	}
	return dr
}
